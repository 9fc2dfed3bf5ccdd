// The global gradient norm at 1, 2 and 4 ranks, on integer gradients (exact sums): a tensor
// replicated on every rank, one sharded by rows, and one repeated over pairs of ranks (as 2.5D's
// depth or data parallelism repeat a shard) are each counted once; counting every rank's shards
// instead is wrong as soon as anything repeats. And the clip's coefficient.
#include "optim/gradient_norm.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"

namespace tplab {
namespace {

struct Model {
  TensorMap gradients;
  std::vector<TensorPlacement> placements;
  double squares = 0;  ///< of the whole model, each element once
};

/// "a" [3] = (1, 2, 2) on every rank; "w" [p, 2], rank r holding row r = (r + 1, r + 1);
/// "u" [2] = (3, 5) cut in two halves, rank r holding half r mod 2, so that each half repeats on
/// p/2 ranks (on one rank, the whole of it).
Model model_on(Device& device, int p, int rank) {
  Model out;
  const auto upload = [&](const std::string& name, const Extents& e, std::vector<double> v) {
    Tensor t = device.empty(e, DType::f64);
    device.upload(v, t);
    out.gradients.emplace("d_" + name, t);
  };
  upload("a", {3}, {1, 2, 2});
  out.placements.push_back(replicated("a", {3}, p));
  out.squares += 9 * 1;
  upload("w", {1, 2}, {rank + 1.0, rank + 1.0});
  out.placements.push_back(blocked("w", {p, 2}, "Shard(0)", p, p, 1, [](int r) {
    return std::pair<std::int64_t, std::int64_t>{r, 0};
  }));
  for (int r = 0; r < p; ++r) out.squares += 2.0 * (r + 1) * (r + 1);
  const int halves = p >= 2 ? 2 : 1;
  const int half = rank % halves;
  if (halves == 2) {
    upload("u", {1}, {half == 0 ? 3.0 : 5.0});
  } else {
    upload("u", {2}, {3, 5});
  }
  out.placements.push_back(blocked("u", {2}, "Shard(0), repeated", p, 1, halves, [&](int r) {
    return std::pair<std::int64_t, std::int64_t>{0, r % halves};
  }));
  out.squares += 9 + 25;
  return out;
}

TEST(GradientNorm, EachElementIsCountedOnce) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  CpuDevice device;
  const Model m = model_on(device, world->size(), world->rank());
  const double norm = global_gradient_norm(
      *world, device, gradients_counted_by(world->rank(), m.gradients, m.placements));
  EXPECT_EQ(norm, std::sqrt(m.squares));
  // one all-gather of one number a rank (none on one rank)
  std::int64_t calls = 0;
  for (const CollectiveCount& c : world->counters().snapshot()) calls += c.calls;
  EXPECT_EQ(calls, world->size() > 1 ? 1 : 0);
}

TEST(GradientNorm, CountingEveryRanksShardsIsWrongWhenAnythingRepeats) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  CpuDevice device;
  const Model m = model_on(device, world->size(), world->rank());
  const double naive = global_gradient_norm(*world, device, m.gradients);
  // "a" counted p times, each half of "u" p/2 times (at 2 ranks once: it does not repeat)
  const int p = world->size();
  const double u_copies = p >= 2 ? p / 2 : 1;
  EXPECT_EQ(naive, std::sqrt(m.squares + 9.0 * (p - 1) + 34.0 * (u_copies - 1)));
  if (p > 1) {
    EXPECT_GT(naive, std::sqrt(m.squares) * 1.05) << "the naive norm " << naive;
  }
}

TEST(GradientNorm, TheClipCoefficientLimitsTheNorm) {
  EXPECT_EQ(clip_coefficient(0.5, 1.0), 1.0);  // below the limit: untouched
  EXPECT_DOUBLE_EQ(clip_coefficient(4.0, 1.0), 1.0 / (4.0 + 1e-6));
  EXPECT_EQ(clip_coefficient(0.0, 1.0), 1.0);
  EXPECT_TRUE(std::isnan(clip_coefficient(std::nan(""), 1.0))) << "a NaN norm must not pass";
}

}  // namespace
}  // namespace tplab
