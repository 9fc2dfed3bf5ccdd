// Attention scores far past exp's overflow point: every scheme agrees with the reference when bk
// shifts each query's row of scores by up to twice the point where exp overflows (709.8 in f64,
// 88.7 in f32), y within tolerance and, as dy = 0 there, every gradient exactly 0. A softmax that
// does not subtract its row's maximum first makes NaN there and fails, while it passes on the
// default inputs, whose scores stay within a few units of zero.
#include <gtest/gtest.h>

#include <cmath>

#include "attention_scores.hpp"
#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "device/ops/cpu_ops.hpp"
#include "harness.hpp"
#include "problem.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"

namespace tplab::verify {
namespace {

/// probs = exp(scale * scores) / sum, causal, without the shift by the row's maximum.
template <typename T>
void unshifted_softmax(const Tensor& scores, double scale, Tensor& probs) {
  const std::int64_t s = scores.dim(1);
  const T* in = scores.data_as<T>();
  T* out = probs.data_as<T>();
  for (std::int64_t r = 0; r < scores.numel() / s; ++r) {
    const std::int64_t visible = r % s + 1;  // query i sees keys 0..i
    T sum = 0;
    for (std::int64_t c = 0; c < s; ++c) {
      out[r * s + c] = c < visible ? std::exp(static_cast<T>(scale) * in[r * s + c]) : T(0);
      sum += out[r * s + c];
    }
    for (std::int64_t c = 0; c < visible; ++c) out[r * s + c] /= sum;
  }
}

/// The CPU's softmax with the forward's shift by the row's maximum left out.
class UnshiftedSoftmax final : public SoftmaxOps {
 public:
  void causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) override {
    if (scores.dtype() == DType::f64) {
      unshifted_softmax<double>(scores, scale, probs);
    } else {
      unshifted_softmax<float>(scores, scale, probs);
    }
  }
  void causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                               Tensor& dscores) override {
    shifted_->causal_softmax_backward(probs, dprobs, scale, dscores);
  }

 private:
  std::unique_ptr<SoftmaxOps> shifted_ = cpu::make_softmax_ops();
};

/// The CPU families, the softmax UnshiftedSoftmax.
DeviceFamilies unshifted_softmax_families() {
  DeviceFamilies f = cpu::make_families();
  f.softmax = std::make_unique<UnshiftedSoftmax>();
  return f;
}

class LargeScores : public testing::Test {
 protected:
  LargeScores() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}

  /// Runs `body` for every scheme on the largest world it can use here at verify's default
  /// shape, split off the test's world; the other ranks wait.
  template <typename Body>
  void for_every_scheme(const Body& body) {
    for (const std::string& scheme : scheme_names()) {
      const BlockShape shape{12, 6, 72, 12};  // verify's default shape
      const int p = make_scheme(scheme)->usable_world_sizes(shape, world->size()).back();
      const bool mine = world->rank() < p;
      auto sub = world->split(mine ? 0 : 1, world->rank(), "large-scores");
      if (mine) {
        RunConfig c;
        c.scheme = scheme;
        c.shape = shape;
        body(*sub, c, scheme + " np=" + std::to_string(p));
      }
      world->barrier();
    }
  }

  std::unique_ptr<Comm> world;
};

TEST_F(LargeScores, EverySchemeAgreesWhenTheScoresPassTheOverflowPoint) {
  CpuDevice device;
  for_every_scheme([&](Comm& sub, RunConfig c, const std::string& label) {
    for (DType dtype : {DType::f64, DType::f32}) {
      c.dtype = dtype;
      c.large_scores = true;
      for (bool overlap : {false, true}) {
        c.options.overlap = overlap;
        const RunResult r = run_verification(sub, device, c);
        const std::string run =
            label + " " + std::string(dtype_name(dtype)) + (overlap ? " overlap" : "");
        EXPECT_TRUE(r.pass) << run;
        EXPECT_GE(r.largest_score, 1.9 * exp_overflow_point(dtype)) << run;
        double used = 0;
        for (const TensorCheck& t : r.tensors) used = std::max(used, t.share);
        if (sub.rank() == 0)
          std::printf("  %s: %.0f%% of the tolerance\n", run.c_str(), used * 100);
      }
    }
  });
}

TEST_F(LargeScores, ASoftmaxWithoutTheShiftFailsThereAndPassesOnTheDefaultInputs) {
  CpuDevice device(unshifted_softmax_families());
  for_every_scheme([&](Comm& sub, RunConfig c, const std::string& label) {
    for (DType dtype : {DType::f64, DType::f32}) {
      c.dtype = dtype;
      c.large_scores = false;
      EXPECT_TRUE(run_verification(sub, device, c).pass)
          << label << " " << dtype_name(dtype) << ": the scores stay within a few units of 0";
      c.large_scores = true;
      const RunResult r = run_verification(sub, device, c);
      EXPECT_FALSE(r.pass) << label << " " << dtype_name(dtype);
      EXPECT_GT(r.tensors.front().nonfinite, 0) << label << " " << dtype_name(dtype) << ": y";
    }
  });
}

TEST(LargeScoresInputs, RaiseEveryRowByAShiftThatLeavesTheForwardAsItWas) {
  const BlockShape shape{12, 6, 72, 12};
  const HostArrays centred = make_inputs(shape, 5, Workload::block, Values::real);
  HostArrays raised = centred;
  raise_attention_scores(shape, raised, 1500.0);
  EXPECT_LT(largest_attention_score(shape, centred), 10.0);
  EXPECT_GT(largest_attention_score(shape, raised), 1400.0);
  for (const auto& [name, array] : centred) {
    if (name != "bk" && name != "dy") {
      EXPECT_EQ(array.values, raised.at(name).values) << name;
    }
  }
  for (double v : raised.at("dy").values) EXPECT_EQ(v, 0.0);
  // The softmax ignores a shift shared by a row: the reference's y is the same but for the
  // rounding of scores near 1500 (2.3e-13 apart in f64).
  const HostArrays before = reference_outputs(shape, centred, Workload::block);
  const HostArrays after = reference_outputs(shape, raised, Workload::block);
  const std::vector<double>& y0 = before.at("y").values;
  const std::vector<double>& y1 = after.at("y").values;
  for (std::size_t i = 0; i < y0.size(); ++i) EXPECT_NEAR(y1[i], y0[i], 1e-10) << i;
}

TEST(LargeScoresInputs, AreRefusedInBf16) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() != 1) GTEST_SKIP() << "one rank is enough for a refusal";
  CpuDevice device;
  RunConfig c;
  c.dtype = DType::bf16;
  c.large_scores = true;
  EXPECT_THROW(run_verification(*world, device, c), UsageError);
}

}  // namespace
}  // namespace tplab::verify
