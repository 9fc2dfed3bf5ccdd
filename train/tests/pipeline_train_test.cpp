// The pipelined GPT against the same scheme without a pipeline: one job runs the pipeline on the
// whole world and its serial twin (the same replicas and tensor-parallel ranks, the same M
// micro-batches one after another, gradients accumulated in the same order) on the ranks of its
// first stage, and every step's loss and applied gradient, and the final parameters, must be
// equal bit for bit; both must follow the reference and keep what the model says per stage.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "device/ops/cpu_ops.hpp"
#include "faulty_comm.hpp"
#include "mesh/mesh_layout.hpp"
#include "trainer.hpp"

namespace tplab::train {
namespace {

/// One pipelined run: the scheme, D and S (the world gives T).
struct Layout {
  std::string scheme;
  int dp = 1;
  int pp = 2;
};

/// The layouts each world size runs: S = 2 and 4 stages on 1D, 1d-sp, 2D and with replicas.
std::vector<Layout> layouts_for(int world_size) {
  switch (world_size) {
    case 4:
      return {{"1d", 1, 2}, {"1d-sp", 1, 2}, {"1d", 1, 4}, {"1d", 2, 2}};
    case 8:
      return {{"2d", 1, 2}, {"1d-sp", 2, 2}, {"1d", 2, 4}};
    default:
      return {};
  }
}

TrainConfig pipelined(const Layout& l, PipelineSchedule schedule, int micro_batches) {
  TrainConfig c;
  c.scheme = l.scheme;
  c.options.dp = l.dp;
  c.options.pp = l.pp;
  c.options.micro_batches = micro_batches;
  c.options.schedule = schedule;
  c.dtype = DType::f64;
  c.steps = 3;
  c.shape.layers = 4;
  c.shape.block.b = 8;  // D x M up to 8 micro-batches of whole sequences
  return c;
}

/// The hashes two runs must share: the loss curve, each step's gradient, the final parameters.
std::vector<std::uint64_t> fingerprints(const TrainResult& r) {
  std::vector<std::uint64_t> out{r.loss_hash, r.parameter_fingerprint};
  for (const StepRecord& s : r.steps) out.push_back(s.gradient_fingerprint);
  return out;
}

/// `mine` on rank 0 of `world`, on every rank. Collective.
std::vector<std::uint64_t> from_rank_zero(Comm& world, std::vector<std::uint64_t> mine) {
  CpuDevice host;
  Tensor t = host.zeros({2 * static_cast<std::int64_t>(mine.size())}, DType::f64);
  for (std::size_t i = 0; i < mine.size(); ++i) {  // two 32-bit halves, which doubles hold
    t.data_as<double>()[2 * i] = static_cast<double>(mine[i] >> 32);
    t.data_as<double>()[2 * i + 1] = static_cast<double>(mine[i] & 0xffffffffull);
  }
  world.broadcast(t, 0);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    mine[i] = (static_cast<std::uint64_t>(t.data_as<double>()[2 * i]) << 32) |
              static_cast<std::uint64_t>(t.data_as<double>()[2 * i + 1]);
  }
  return mine;
}

TEST(Pipeline, EveryScheduleEqualsTheSerialRunBitForBit) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (layouts_for(world->size()).empty()) GTEST_SKIP() << "pipelines run on 4 and 8 ranks here";
  CpuDevice device;
  for (const Layout& l : layouts_for(world->size())) {
    // the serial twin runs on the first stage's ranks: D x T of them
    const MeshLayout mesh = mesh_of({.dp = l.dp, .pp = l.pp}, world->size());
    const bool twin = mesh.stage_of(world->rank()) == 0;
    auto first_stage = world->split(twin ? 0 : 1, world->rank(), "twin");
    for (int micro_batches : {1, 2, 4}) {
      for (PipelineSchedule schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
        const TrainConfig c = pipelined(l, schedule, micro_batches);
        const std::string what = fmt::format("{} dp={} pp={} M={} {}", l.scheme, l.dp, l.pp,
                                             micro_batches, schedule_name(schedule));
        const TrainResult piped = run_training(*world, device, c);
        EXPECT_TRUE(piped.pass) << what << ": max relative difference "
                                << piped.max_relative_difference << ", memory "
                                << piped.memory_differs << ", replicas " << piped.replicas_differ;
        TrainConfig serial = c;
        serial.options.pp = 1;
        std::vector<std::uint64_t> expected(2 + c.steps, 0);
        if (twin) {
          const TrainResult alone = run_training(*first_stage, device, serial);
          EXPECT_TRUE(alone.pass) << what << " without the pipeline";
          expected = fingerprints(alone);
        }
        EXPECT_EQ(fingerprints(piped), from_rank_zero(*world, expected))
            << what
            << ": the pipeline's loss, gradients or parameters differ from the serial run's";
        if (world->rank() == 0) {
          std::printf("%s: loss %.6f -> %.6f, bit for bit as the serial run\n", what.c_str(),
                      piped.steps.front().loss, piped.steps.back().loss);
        }
      }
    }
  }
}

TEST(Pipeline, MicroBatchesDoNotChangeTheGradientBeyondRounding) {
  // M = 1, 2, 4, 8 on one stage: the same mean-loss gradient within f64's rounding; a
  // micro-batch counted twice or a sum instead of a mean would be off by far more.
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() != 4) GTEST_SKIP() << "runs on 4 ranks";
  CpuDevice device;
  std::vector<double> norms;
  for (int micro_batches : {1, 2, 4, 8}) {
    TrainConfig c = pipelined({"1d", 1, 2}, PipelineSchedule::one_f_one_b, micro_batches);
    c.clip = 1e-9;  // every step clipped: the norm is measured and reported
    c.steps = 1;
    const TrainResult r = run_training(*world, device, c);
    EXPECT_TRUE(r.pass) << "M=" << micro_batches;
    norms.push_back(r.steps.front().gradient_norm);
    EXPECT_NEAR(r.steps.front().gradient_norm, r.steps.front().reference_gradient_norm,
                1e-12 * r.steps.front().reference_gradient_norm)
        << "M=" << micro_batches;
  }
  for (double n : norms) EXPECT_NEAR(n, norms.front(), 1e-12 * norms.front());
}

/// The CPU's element-wise operations, with scaling by one `alpha` planted with a mistake by a
/// subclass (mistaken_scale); every other operation as the CPU's.
class PlantedScale : public ElementwiseOps {
 public:
  PlantedScale(std::unique_ptr<ElementwiseOps> inner, double alpha)
      : inner_(std::move(inner)), alpha_(alpha) {}
  void add_inplace(Tensor& y, const Tensor& x) override { inner_->add_inplace(y, x); }
  void scale(Tensor& x, double alpha) override {
    if (alpha == alpha_) {
      mistaken_scale(*inner_, x, alpha);
    } else {
      inner_->scale(x, alpha);
    }
  }
  void add_bias(Tensor& y, const Tensor& bias) override { inner_->add_bias(y, bias); }
  void column_sum(const Tensor& x, Tensor& out, double beta) override {
    inner_->column_sum(x, out, beta);
  }
  void dropout(Tensor& x, const DropoutMask& mask) override { inner_->dropout(x, mask); }

 protected:
  /// Scales x by the planted alpha, with the mistake; `inner` scales as the CPU does.
  virtual void mistaken_scale(ElementwiseOps& inner, Tensor& x, double alpha) = 0;

 private:
  std::unique_ptr<ElementwiseOps> inner_;
  double alpha_;
};

/// Scaling by `alpha` scales by alpha twice: the micro-batches' sum divided by M twice, as a
/// pipeline that rescales every stage does.
class ScalesTwice final : public PlantedScale {
 public:
  using PlantedScale::PlantedScale;

 private:
  void mistaken_scale(ElementwiseOps& inner, Tensor& x, double alpha) override {
    inner.scale(x, alpha);
    inner.scale(x, alpha);
  }
};

TEST(Pipeline, AMicroBatchScaledTwiceFailsByItsGradientNorm) {
  // Bit for bit with the serial run proves nothing here (both scale alike): the reference's
  // loss and gradient norm catch it, at the first step.
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() != 4) GTEST_SKIP() << "runs on 4 ranks";
  DeviceFamilies families = cpu::make_families();
  families.elementwise = std::make_unique<ScalesTwice>(std::move(families.elementwise), 0.25);
  CpuDevice faulty(std::move(families));
  const TrainResult r =
      run_training(*world, faulty, pipelined({"1d", 1, 2}, PipelineSchedule::one_f_one_b, 4));
  EXPECT_FALSE(r.pass);
  EXPECT_NEAR(r.steps.front().gradient_norm, r.steps.front().reference_gradient_norm / 4,
              1e-12 * r.steps.front().reference_gradient_norm)
      << "the gradient a quarter of the reference's";
}

/// The micro-batches' sum of a step starts from what the buffer held after the step before (its
/// mean gradient) instead of from zero, as a pipeline that never clears its accumulation buffers
/// between steps does: each step's sum is divided by M in one scale by 1/M (GptModel's
/// finish_step), so there what the buffer held after the last such scale is added back first.
/// f64 tensors only.
class StaleAccumulation final : public PlantedScale {
 public:
  using PlantedScale::PlantedScale;

 private:
  void mistaken_scale(ElementwiseOps& inner, Tensor& x, double alpha) override {
    double* v = x.data_as<double>();
    std::vector<double>& stale = held_[v];  // what this buffer held after the step before
    stale.resize(static_cast<std::size_t>(x.numel()), 0.0);
    for (std::size_t i = 0; i < stale.size(); ++i) v[i] += stale[i];
    inner.scale(x, alpha);
    stale.assign(v, v + stale.size());
  }

  std::map<const double*, std::vector<double>> held_;
};

TEST(Pipeline, AnAccumulationStartedFromAStaleGradientFailsAtTheNextStep) {
  // The first step is right (nothing stale yet); from the second on, every gradient holds the
  // steps before it, which the reference's gradient norm sees at once.
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() != 4) GTEST_SKIP() << "runs on 4 ranks";
  DeviceFamilies families = cpu::make_families();
  families.elementwise = std::make_unique<StaleAccumulation>(std::move(families.elementwise), 0.25);
  CpuDevice faulty(std::move(families));
  const TrainResult r =
      run_training(*world, faulty, pipelined({"1d", 1, 2}, PipelineSchedule::one_f_one_b, 4));
  EXPECT_FALSE(r.pass);
  ASSERT_GE(r.steps.size(), 2u);
  EXPECT_NEAR(r.steps[0].gradient_norm, r.steps[0].reference_gradient_norm,
              1e-12 * r.steps[0].reference_gradient_norm)
      << "the first step has nothing stale to start from";
  EXPECT_FALSE(r.tolerance.norm_holds(r.steps[1].gradient_norm, r.steps[1].reference_gradient_norm,
                                      r.steps[1].step))
      << "step 1's gradient holds step 0's: norm " << r.steps[1].gradient_norm << " against "
      << r.steps[1].reference_gradient_norm;
}

TEST(Pipeline, AStageWhoseReplicasAreNotReducedFailsTheRun) {
  // DP 2 x PP 2 x TP 2: the second stage's replicas skip their gradient all-reduce in the first
  // step; their parameters part, which the replica check sees.
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() != 8) GTEST_SKIP() << "runs on 8 ranks";
  CpuDevice device;
  const TrainConfig c = pipelined({"1d", 2, 2}, PipelineSchedule::one_f_one_b, 2);
  const bool second_stage = mesh_of(c.options, world->size()).stage_of(world->rank()) == 1;
  verify::FaultyComm faulty(*world, verify::Fault{"dp", 0});
  const TrainResult r = run_training(second_stage ? static_cast<Comm&>(faulty) : *world, device, c);
  EXPECT_FALSE(r.pass);
  // the second stage's parameters part ("b_head: ranks 2 and 6 hold the same block (...,
  // on stage 1 of pp) with other bits"), and the loss with them
  EXPECT_NE(r.replicas_differ.find("on stage 1 of pp"), std::string::npos) << r.replicas_differ;
  EXPECT_GT(r.max_relative_difference, r.tolerance.rtol);
}

/// One row of the invariance table.
struct Row {
  int dp, pp, micro_batches;
  TrainResult result;
};

/// Every (D, S, M) with D in {1, 2}, S in {1, 2, 4}, M in {1, 2, 4, 8} whose D x S x T ranks fit
/// the world, each run on the world's first ranks: one global batch, two steps.
std::vector<Row> invariance_table(Comm& world, Device& device, const std::string& scheme,
                                  int scheme_ranks, const OptimizerConfig& optimizer, double clip) {
  std::vector<Row> rows;
  for (int dp : {1, 2}) {
    for (int pp : {1, 2, 4}) {
      for (int micro_batches : {1, 2, 4, 8}) {
        const int ranks = dp * pp * scheme_ranks;
        if (ranks > world.size()) continue;
        TrainConfig c;
        c.scheme = scheme;
        c.options = {.dp = dp, .pp = pp, .micro_batches = micro_batches};
        c.dtype = DType::f64;
        c.steps = 2;
        c.shape = {BlockShape{32, 8, 32, 4}, 64, 4};  // 2D needs q | b / (D M)
        c.optimizer = optimizer;
        c.clip = clip;
        auto group = world.split(world.rank() < ranks ? 0 : 1, world.rank(), "table");
        TrainResult r;
        if (world.rank() < ranks) r = run_training(*group, device, c);
        // every rank of the world keeps the first rank's row
        CpuDevice host;
        Tensor row = host.zeros({8}, DType::f64);
        if (world.rank() == 0) {
          double* v = row.data_as<double>();
          v[0] = r.pass ? 1 : 0;
          for (int s = 0; s < 2; ++s) {
            v[1 + 3 * s] = r.steps[static_cast<std::size_t>(s)].loss;
            v[2 + 3 * s] = r.steps[static_cast<std::size_t>(s)].gradient_norm;
            v[3 + 3 * s] = r.steps[static_cast<std::size_t>(s)].reference_gradient_norm;
          }
          v[7] = static_cast<double>(r.steps.back().gradient_fingerprint >> 11);
        }
        world.broadcast(row, 0);
        const double* v = row.data_as<double>();
        TrainResult kept;
        kept.pass = v[0] == 1;
        for (int s = 0; s < 2; ++s) {
          StepRecord step;
          step.loss = v[1 + 3 * s];
          step.gradient_norm = v[2 + 3 * s];
          step.reference_gradient_norm = v[3 + 3 * s];
          kept.steps.push_back(step);
        }
        kept.steps.back().gradient_fingerprint = static_cast<std::uint64_t>(v[7]);
        rows.push_back({dp, pp, micro_batches, kept});
      }
    }
  }
  return rows;
}

TEST(Pipeline, InvarianceTableOverReplicasStagesAndMicroBatches) {
  // For one global batch, every (D, S, M) gives the same loss and gradient norm within f64's
  // rounding, with SGD and AdamW, with and without clipping; where only S differs (the same
  // micro-batches accumulated in the same order), the applied gradient is the same bit for bit.
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() != 8) GTEST_SKIP() << "the table runs on 8 ranks";
  CpuDevice device;
  const OptimizerConfig sgd{};
  OptimizerConfig adamw{};
  adamw.kind = OptimizerKind::adamw;
  adamw.learning_rate = 0.01;
  for (const auto& [scheme, scheme_ranks] : {std::pair{"1d", 1}, std::pair{"2d", 4}}) {
    for (const OptimizerConfig& optimizer : {sgd, adamw}) {
      for (double clip : {0.0, 0.5}) {
        const std::vector<Row> rows =
            invariance_table(*world, device, scheme, scheme_ranks, optimizer, clip);
        const std::string what =
            fmt::format("{} {} clip {}", scheme, optimizer_name(optimizer.kind), clip);
        if (world->rank() == 0)
          std::printf("%s:\n     D  S  M   loss step 1      norm step 0      norm step 1\n",
                      what.c_str());
        for (const Row& row : rows) {
          const std::string at =
              fmt::format("{} D={} S={} M={}", what, row.dp, row.pp, row.micro_batches);
          EXPECT_TRUE(row.result.pass) << at;
          for (std::size_t s = 0; s < 2; ++s) {
            const StepRecord& got = row.result.steps[s];
            const StepRecord& first = rows.front().result.steps[s];
            EXPECT_NEAR(got.loss, first.loss, 1e-13 * first.loss) << at << " step " << s;
            EXPECT_NEAR(got.gradient_norm, got.reference_gradient_norm,
                        1e-12 * got.reference_gradient_norm)
                << at << " step " << s;
          }
          for (const Row& other : rows) {
            if (other.dp == row.dp && other.micro_batches == row.micro_batches) {
              EXPECT_EQ(other.result.steps.back().gradient_fingerprint,
                        row.result.steps.back().gradient_fingerprint)
                  << at << " against S=" << other.pp << ": the same accumulation, other bits";
            }
          }
          if (world->rank() == 0) {
            std::printf("    %2d %2d %2d  %.13f  %.13f  %.13f\n", row.dp, row.pp, row.micro_batches,
                        row.result.steps[1].loss, row.result.steps[0].gradient_norm,
                        row.result.steps[1].gradient_norm);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tplab::train
