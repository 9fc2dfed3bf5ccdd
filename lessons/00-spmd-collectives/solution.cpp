// Lesson 00, the library's answer: Comm::all_reduce, and the ring's cost as the counters and
// the cost model count it.
#include "lesson.hpp"

namespace tplab::lessons::spmd {

Tensor global_sum(Device& device, Comm& world, const Tensor& x_local) {
  Tensor sum = device.empty(x_local.extents(), x_local.dtype());
  device.copy(x_local, sum);
  world.all_reduce(sum);
  return sum;
}

// The library's version: parallel/comm/collective.cpp, bus_factor, by which the counters
// scale every collective's elements.
double ring_all_reduce_elements(int p, std::int64_t elements) {
  // reduce-scatter: p - 1 steps of N/p; all-gather: p - 1 more.
  return 2.0 * (p - 1) / p * static_cast<double>(elements);
}

double all_reduce_bus_bandwidth(double algbw, int p) {
  return algbw * 2.0 * (p - 1) / p;
}

double ring_all_reduce_seconds(int p, double bytes, double alpha, double bandwidth) {
  return 2.0 * (p - 1) * alpha + 2.0 * (p - 1) / p * bytes / bandwidth;
}

}  // namespace tplab::lessons::spmd
