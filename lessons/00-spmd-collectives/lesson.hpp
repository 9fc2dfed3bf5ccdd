/// @file
/// Lesson 00: SPMD, ranks and collectives, and what communication costs.
#pragma once

#include "comm/comm.hpp"
#include "device/device.hpp"

namespace tplab::lessons::spmd {

/// S[N] = sum over ranks r of X_r[N], on every rank (X_r is this rank's own tensor).
Tensor global_sum(Device& device, Comm& world, const Tensor& x_local);

/// Elements one rank sends in a ring all-reduce of `elements` (N) elements over p ranks.
double ring_all_reduce_elements(int p, std::int64_t elements);

/// The bus bandwidth of an all-reduce that ran at algorithm bandwidth `algbw` on p ranks.
double all_reduce_bus_bandwidth(double algbw, int p);

/// Seconds a ring all-reduce of `bytes` takes on p ranks in the alpha-beta model: every step
/// costs `alpha` seconds of latency, and every byte sent costs 1/bandwidth seconds.
double ring_all_reduce_seconds(int p, double bytes, double alpha, double bandwidth);

}  // namespace tplab::lessons::spmd
