/// @file
/// DeviceInterval: the time a collective took on a device's clock, read once it is over.
#pragma once

namespace tplab {

/// The span between two events a transport recorded on a device's stream around one collective
/// (NcclComm). Reading it waits until the second event has been reached, so a transport hands it
/// to the counters instead of blocking the host after every collective: CommCounters reads it
/// when the counters themselves are read.
class DeviceInterval {
 public:
  virtual ~DeviceInterval() = default;
  /// Seconds between the two events; blocks the host until the second has been reached.
  virtual double seconds() = 0;
};

}  // namespace tplab
