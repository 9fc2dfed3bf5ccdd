/// @file
/// What the machine offers (cores) and what this process used (CPU time, peak resident memory),
/// for marking oversubscribed or contended runs and reporting memory per rank.
#pragma once

#include <cstdint>

namespace tplab::bench {

/// Cores this process may run on (std::thread::hardware_concurrency, at least 1). A run with
/// more ranks than this is oversubscribed: its ranks take turns on the cores, so its times say
/// little about the scheme.
int available_cores();

/// True when `ranks` processes on this machine would share cores.
bool oversubscribed(int ranks);

/// Starts measuring the peak resident memory from now: resets the kernel's high-water mark
/// (VmHWM, via /proc/self/clear_refs) to the current resident size. Returns false where the
/// kernel does not allow it; the peak then counts from the start of the process.
bool reset_peak_resident();

/// CPU seconds this process has used so far, user and system (getrusage). Over a stretch of
/// wall time, their ratio is the share of a core the process got: below 1 when other
/// processes took turns on its core.
double process_cpu_seconds();

/// The peak resident memory of this process in bytes: VmHWM of /proc/self/status (what
/// getrusage's ru_maxrss reports too, but that one cannot be reset). 0 when unknown.
std::int64_t peak_resident_bytes();

}  // namespace tplab::bench
