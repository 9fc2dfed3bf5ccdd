// Dropout and recomputation against the reference, at the world size of the mpiexec: every
// scheme that runs there draws the reference's masks, and so do data-parallel replicas; the
// keying bugs fail; recomputing gives the same bits and keeps what the model says; backward
// replays forward's draw, and a draw shifted by one step is caught; each mode computes the
// attention probabilities as often as the FLOP model counts.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cstring>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "device/ops/cpu_ops.hpp"
#include "harness.hpp"
#include "problem.hpp"
#include "rank_shards.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"

namespace tplab::verify {
namespace {

/// The CPU's causal softmax, counting its forward's calls: each is one computation of the
/// attention probabilities P.
class CountingSoftmax final : public SoftmaxOps {
 public:
  explicit CountingSoftmax(std::unique_ptr<SoftmaxOps> inner) : inner_(std::move(inner)) {}
  void causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) override {
    ++forward_calls;
    inner_->causal_softmax_forward(scores, scale, probs);
  }
  void causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                               Tensor& dscores) override {
    inner_->causal_softmax_backward(probs, dprobs, scale, dscores);
  }
  int forward_calls = 0;

 private:
  std::unique_ptr<SoftmaxOps> inner_;
};

class Dropout : public testing::Test {
 protected:
  Dropout() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}

  /// The schemes that can run shape_ on this many ranks.
  std::vector<std::string> schemes() const {
    std::vector<std::string> out;
    for (const std::string& name : scheme_names()) {
      if (make_scheme(name, {})->why_not(world->size(), shape_).empty()) out.push_back(name);
    }
    return out;
  }

  RunConfig config(const std::string& scheme, DropoutKeying keying, Recompute recompute) const {
    RunConfig c;
    c.scheme = scheme;
    c.shape = shape_;
    c.dtype = DType::f64;
    c.seed = 5;
    c.options.training = {{0.1, 42}, keying, recompute};
    return c;
  }

  /// This rank's shards of c's inputs and its block on `on`, built from them.
  std::pair<RankShards, std::unique_ptr<ParallelModule>> rank_block(Device& on, const RunConfig& c) {
    const auto scheme = make_scheme(c.scheme, c.options);
    const HostArrays inputs = make_inputs(c.shape, c.seed, Workload::block, Values::real);
    RankShards mine =
        shard_for_rank(on, inputs, scheme->placements(world->size(), c.shape, Workload::block),
                       world->rank(), c.dtype);
    auto module =
        scheme->make_module(*world, on, c.shape, Workload::block, std::move(mine.parameters));
    return {std::move(mine), std::move(module)};
  }

  /// y, dx and every gradient of this rank, forward drawing `forward_draw` and backward
  /// started once the block was told `backward_draw` (a later step's) in between.
  std::vector<std::vector<double>> outputs(const RunConfig& c, DropoutDraw forward_draw,
                                           DropoutDraw backward_draw) {
    auto [mine, module] = rank_block(device, c);
    module->set_dropout_draw(forward_draw);
    std::vector<Tensor> got{module->forward(mine.x)};
    module->set_dropout_draw(backward_draw);
    got.push_back(module->backward(mine.dy));
    for (const auto& [name, gradient] : module->gradients()) got.push_back(gradient);
    std::vector<std::vector<double>> out;
    for (const Tensor& t : got) {
      out.emplace_back(static_cast<std::size_t>(t.numel()));
      device.download(t, out.back());
    }
    return out;
  }

  /// How many times this rank's block computes P in its forward and in its backward, on a CPU
  /// device that counts the softmax's forward calls.
  std::pair<int, int> probability_computations(const RunConfig& c) {
    DeviceFamilies families = cpu::make_families();
    auto counting = std::make_unique<CountingSoftmax>(std::move(families.softmax));
    const CountingSoftmax& softmax = *counting;
    families.softmax = std::move(counting);
    CpuDevice counted(std::move(families));
    auto [mine, module] = rank_block(counted, c);
    module->forward(mine.x);
    const int forward = softmax.forward_calls;
    module->backward(mine.dy);
    return {forward, softmax.forward_calls - forward};
  }

  BlockShape shape_{4, 8, 32, 4};
  CpuDevice device;
  std::unique_ptr<Comm> world;
};

TEST_F(Dropout, EverySchemeDrawsTheReferenceMasksInEveryRecomputeMode) {
  for (const std::string& scheme : schemes()) {
    for (Recompute mode : {Recompute::none, Recompute::selective, Recompute::full}) {
      const RunResult r =
          run_verification(*world, device, config(scheme, DropoutKeying::global, mode));
      EXPECT_TRUE(r.pass) << scheme << " recompute " << recompute_name(mode);
      EXPECT_TRUE(r.properties.holds(Property::kept))
          << scheme << " recompute " << recompute_name(mode);
      EXPECT_TRUE(r.properties.holds(Property::recompute))
          << scheme << " recompute " << recompute_name(mode) << ": " << r.recompute_first_difference
          << " differs from the run that keeps everything";
    }
  }
}

TEST_F(Dropout, ForwardComputesTheProbabilitiesOnceAndBackwardAgainOnlyWhenRecomputing) {
  // model::recompute_flops: selective adds P's q k^T once, full the block's forward once (its
  // P included), so in every mode but none backward computes P exactly once more
  std::vector<std::string> wrong;
  for (const std::string& scheme : schemes()) {
    for (Recompute mode : {Recompute::none, Recompute::selective, Recompute::full}) {
      const auto [forward, backward] =
          probability_computations(config(scheme, DropoutKeying::global, mode));
      const int want = mode == Recompute::none ? 0 : 1;
      if (forward == 1 && backward == want) continue;
      wrong.push_back(
          fmt::format("{} recompute {}: {} in forward and {} in backward (1 and {} expected)",
                      scheme, recompute_name(mode), forward, backward, want));
    }
  }
  EXPECT_TRUE(wrong.empty()) << fmt::format("times P was computed: {}", fmt::join(wrong, "; "));
}

TEST_F(Dropout, OneSeedPerRankFails) {
  for (const std::string& scheme : schemes()) {
    const RunResult r =
        run_verification(*world, device, config(scheme, DropoutKeying::rank_seed, Recompute::none));
    EXPECT_FALSE(r.pass) << scheme << ": each rank seeding its own masks went unnoticed";
  }
}

TEST_F(Dropout, OneSeedForEveryShardFails) {
  if (world->size() == 1) GTEST_SKIP() << "one rank's shard is the whole tensor";
  for (const std::string& scheme : schemes()) {
    const RunResult r =
        run_verification(*world, device, config(scheme, DropoutKeying::local, Recompute::none));
    EXPECT_FALSE(r.pass) << scheme << ": every shard drawing the same mask went unnoticed";
  }
}

TEST_F(Dropout, DataParallelReplicasDrawTheirOwnSequencesMasks) {
  if (world->size() % 2 != 0) GTEST_SKIP() << "two replicas need an even world";
  for (Recompute mode : {Recompute::none, Recompute::full}) {
    RunConfig c = config("1d", DropoutKeying::global, mode);
    c.options.dp = 2;
    const RunResult r = run_verification(*world, device, c);
    EXPECT_TRUE(r.pass) << "dp=2 x 1d, recompute " << recompute_name(mode);
  }
  // one replica per rank, each drawing masks by the place in its own sequences: both replicas
  // draw the first sequences' masks, the bug of a seed shared by data-parallel ranks
  RunConfig c = config("1d", DropoutKeying::local, Recompute::none);
  c.options.dp = world->size();
  c.shape.b = 2 * world->size();
  EXPECT_FALSE(run_verification(*world, device, c).pass)
      << "replicas drawing the same masks went unnoticed";
}

TEST_F(Dropout, BackwardReplaysForwardsDrawAndAShiftedDrawDiffers) {
  for (const std::string& scheme : schemes()) {
    for (Recompute mode : {Recompute::none, Recompute::selective, Recompute::full}) {
      const RunConfig c = config(scheme, DropoutKeying::global, mode);
      const auto replayed = outputs(c, {0, 0}, {0, 0});
      // the block is told of step 1 between forward and backward: backward, and full's second
      // forward, must still draw step 0's masks, bit for bit
      const auto advanced = outputs(c, {0, 0}, {1, 0});
      ASSERT_EQ(replayed.size(), advanced.size());
      for (std::size_t i = 0; i < replayed.size(); ++i) {
        EXPECT_EQ(std::memcmp(replayed[i].data(), advanced[i].data(),
                              replayed[i].size() * sizeof(double)),
                  0)
            << scheme << " recompute " << recompute_name(mode) << ": output " << i
            << " changed with the draw set after forward";
      }
      // every mask one step on: the output moves far beyond round-off (the verdict's tolerance
      // is 1e-12 of its scale; a tenth of the elements change by 1/(1-p))
      const auto shifted = outputs(c, {1, 0}, {1, 0});
      double worst = 0;
      for (std::size_t e = 0; e < replayed[0].size(); ++e) {
        worst = std::max(worst, std::abs(replayed[0][e] - shifted[0][e]));
      }
      EXPECT_GT(worst, 1e-3) << scheme << ": a shifted counter gave the same y";
    }
  }
}

}  // namespace
}  // namespace tplab::verify
