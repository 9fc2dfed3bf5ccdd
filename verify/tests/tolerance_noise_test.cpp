// f64's tolerance is tight enough to see a relative error of 1e-12 in one rank's block of one
// output or gradient. With a bound far above what correct code reaches (the old rel_l2 bound was
// 1e-12, 500 times the measured worst), such noise, say a sum taken in a slightly wrong order or
// one term dropped from a long reduction, passed.
#include <gtest/gtest.h>

#include <algorithm>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "harness.hpp"
#include "problem.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"

namespace tplab::verify {
namespace {

constexpr double kNoise = 1e-12;

/// The reference's block `range` of `reference`, each element times (1 + 1e-12) or
/// (1 - 1e-12), alternately, when `noisy`.
std::vector<double> shard_of(const HostArray& reference, const BlockRange& range, bool noisy) {
  std::vector<double> got = reference.block(range);
  if (!noisy) return got;
  for (std::size_t i = 0; i < got.size(); ++i) got[i] *= 1.0 + (i % 2 == 0 ? kNoise : -kNoise);
  return got;
}

TEST(ToleranceNoise, RelativeNoiseOf1e12InOneRanksBlockOfAnyOutputOrGradientFails) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  const BlockShape shape{12, 6, 72, 12};  // verify's default
  const HostArrays inputs = make_inputs(shape, 1, Workload::block, Values::shifted);
  const HostArrays reference = reference_outputs(shape, inputs, Workload::block);
  const Tolerance f64 = tolerance_for(DType::f64, false);
  for (const std::string& scheme : scheme_names()) {
    const int p = make_scheme(scheme)->usable_world_sizes(shape, world->size()).back();
    const bool mine = world->rank() < p;
    auto sub = world->split(mine ? 0 : 1, world->rank(), "noise");
    if (mine) {
      const std::vector<TensorPlacement> placements =
          make_scheme(scheme)->placements(p, shape, Workload::block);
      for (const std::string& name : checked_tensors(Workload::block)) {
        if (zero_gradient(name) != nullptr) continue;  // round-off on both sides: no scale
        const TensorPlacement& placement = find_placement(placements, name);
        // Each distinct block in turn is the noisy one, on every rank that holds it, so that
        // the replicas agree and only the tolerance can see the noise.
        for (int owner = 0; owner < p; ++owner) {
          const BlockRange& noisy = placement.blocks[static_cast<std::size_t>(owner)];
          if (std::find(placement.blocks.begin(), placement.blocks.begin() + owner, noisy) !=
              placement.blocks.begin() + owner) {
            continue;
          }
          const BlockRange& held = placement.blocks[static_cast<std::size_t>(sub->rank())];
          ShardToCheck shard{name,       &reference.at(name),
                             &placement, shard_of(reference.at(name), held, held == noisy),
                             f64,        rms(reference.at(name).values)};
          const TensorCheck c = compare_shards(*sub, {shard}).front();
          const std::string label = scheme + " np=" + std::to_string(p) + " " + name +
                                    ", noise in rank " + std::to_string(owner) + "'s block";
          EXPECT_FALSE(c.pass) << label << ": rel_l2 " << c.rel_l2 << " within " << c.max_rel_l2;
          EXPECT_TRUE(c.replicas_differ.empty()) << label;
        }
        // Without the noise, the reference's own values pass.
        const BlockRange& held = placement.blocks[static_cast<std::size_t>(sub->rank())];
        ShardToCheck clean{name,       &reference.at(name),
                           &placement, shard_of(reference.at(name), held, false),
                           f64,        rms(reference.at(name).values)};
        EXPECT_TRUE(compare_shards(*sub, {clean}).front().pass) << scheme << " " << name;
      }
    }
    world->barrier();
  }
}

}  // namespace
}  // namespace tplab::verify
