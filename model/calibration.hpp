/// @file
/// Calibration: measuring this machine's rates for the `local` hardware profile.
#pragma once

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "hardware.hpp"

namespace tplab::model {

/// The measurements behind a calibrated profile, for printing.
struct Calibration {
  int ranks = 0;                  ///< the world size it ran on
  std::int64_t matmul_size = 0;   ///< n of the [n, n] x [n, n] f32 product timed
  double matmul_flops_per_s = 0;  ///< per rank, all ranks multiplying at once
  /// One collective's three timings and the rates fitted to them.
  struct Point {
    /// The collective timed.
    Collective collective = Collective::all_reduce;
    /// The three message sizes in elements (small, medium, large) and the median seconds per
    /// call at each (small_s, medium_s, large_s), the slowest rank's.
    ///@{
    std::int64_t small = 0, medium = 0, large = 0;  ///< elements per call (f32)
    double small_s = 0, medium_s = 0, large_s = 0;  ///< median time per call, slowest rank
    LinkRate rate;                                  ///< alpha and bandwidth fitted to them
    ///@}
  };
  std::vector<Point> collectives;  ///< every collective, send and recv too, in Collective's order
};

/// Times, on every rank of `world` at once, an f32 matrix product of `device` and every
/// collective at three sizes (send and recv as transfers between pairs of ranks), and fits the
/// alpha-beta rates:
///   alpha     = t(small) / ring steps, with small = 8 elements per rank;
///   bandwidth = N bus factor x 4 bytes / (t(large) - t(medium)) x (large - medium) / N, with
///               medium 2^18 and large 2^22 elements: the slope, free of the fixed cost.
/// A time is the median over repeats of the slowest rank's. Collective over `world`.
Calibration calibrate(Comm& world, Device& device);

/// Bytes one rank of a calibration allocates: three [n, n] f32 matrices for the product, and
/// a collective's input and output of up to `large` f32 elements.
double calibration_bytes_per_rank();

/// The `local` profile from a calibration: one node of `world`'s ranks, f32, the measured
/// rates per collective (the link's own rates are all-reduce's), and for every number its
/// source: what was measured, how, and when.
HardwareProfile local_profile(const Calibration& calibration);

}  // namespace tplab::model
