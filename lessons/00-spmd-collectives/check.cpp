// Lesson 00 checker: the global sum exactly, and the predicted cost of the all-reduce against
// what the communication counters measured and what the cost model says.
#include <fmt/format.h>

#include "lesson.hpp"
#include "lessons/common/lesson.hpp"

namespace tplab::lessons::spmd {
namespace {

constexpr std::int64_t kElements = 24;  // N: divisible by every world size the lesson runs

/// A one-element tensor holding `value`, for the scalar rows of the table.
Tensor scalar(Device& device, double value) {
  Tensor t = device.empty({1}, DType::f64);
  device.fill(t, value);
  return t;
}

void run(Lesson& lesson) {
  const int p = lesson.size();
  require_world_size(lesson, kElements % p == 0,
                     fmt::format("lesson 00 cuts its {} elements into p equal pieces", kElements),
                     {1, 2, 3, 4});
  // Row r of X[p, N] is rank r's own X_r: different data on every rank, one program.
  const HostArray x = host_array({p, kElements}, draw(p * kElements, 7, true));
  HostArray sum{{kElements}, std::vector<double>(kElements, 0.0)};
  for (int r = 0; r < p; ++r) {
    for (std::int64_t i = 0; i < kElements; ++i) {
      sum.values[static_cast<std::size_t>(i)] +=
          x.values[static_cast<std::size_t>(r * kElements + i)];
    }
  }
  const TensorPlacement x_place = blocked("X_r", x.extents, "Shard(0)", p, p, 1, [](int r) {
    return std::pair<std::int64_t, std::int64_t>{r, 0};
  });
  const TensorPlacement sum_place = replicated("S", sum.extents, p);
  lesson.print_shards({{"X", "[p_P, N]", &x_place}, {"S", "[N]", &sum_place}});

  lesson.part("forward", [&] {
    Device& device = lesson.device();
    CommCounters& counters = lesson.world().counters();
    counters.reset();
    const Tensor x_local = lesson.shard(x, x_place).reshaped({kElements});
    const Tensor s = global_sum(device, lesson.world(), x_local);
    double measured = 0;  // what crossed this rank's link, as the counters record it
    for (const CollectiveCount& c : lesson.counted(counters.snapshot())) {
      measured += c.bus_elements;
    }
    lesson.expect("S", sum, sum_place, s, exact_tolerance());

    const TensorPlacement one = replicated("scalar", {1}, p);
    const auto expect_scalar = [&](const std::string& name, double got, double want) {
      lesson.expect(name, host_array({1}, {want}), one, scalar(device, got),
                    verify::tolerance_for(DType::f64, false));
    };
    expect_scalar("sent", ring_all_reduce_elements(p, kElements), measured);
    const double algbw = 100e9;  // bytes per second, an example
    expect_scalar("busbw", all_reduce_bus_bandwidth(algbw, p), algbw * 2.0 * (p - 1) / p);
    const double bytes = 1 << 30, alpha = 5e-6, bandwidth = 50e9;
    expect_scalar("seconds", ring_all_reduce_seconds(p, bytes, alpha, bandwidth),
                  2.0 * (p - 1) * alpha + 2.0 * (p - 1) / p * bytes / bandwidth);
    lesson.report("global sum (exact) and the cost of one all-reduce");
    if (lesson.speaks()) {
      fmt::print("  sent: elements one rank sent in the all-reduce of N = {}, as counted ({:g})\n",
                 kElements, measured);
      fmt::print("  busbw at algbw 100 GB/s; seconds for 1 GiB at alpha 5 us, 50 GB/s\n");
    }
  });
}

}  // namespace
}  // namespace tplab::lessons::spmd

int main() {
  return tplab::lessons::run_lesson("lesson 00", tplab::lessons::spmd::run);
}
