#include "rank_measures.hpp"

#include "device/cpu_device.hpp"

namespace tplab::bench {

double max_over_ranks(Comm& world, double value) {
  CpuDevice host;
  Tensor t = host.empty({1}, DType::f64);
  t.data_as<double>()[0] = value;
  world.all_reduce(t, ReduceOp::max);
  return t.data_as<double>()[0];
}

double bus_bytes_of(const CommCounters& counters) {
  double bytes = 0;
  for (const CollectiveCount& c : counters.snapshot()) {
    if (c.elements > 0) bytes += c.bus_elements * static_cast<double>(c.bytes) / c.elements;
  }
  return bytes;
}

}  // namespace tplab::bench
