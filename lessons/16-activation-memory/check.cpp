// Lesson 16 checker: the exercise's count of what the 1D block keeps for backward against the
// bytes the library's block keeps, measured on the device, with and without sequence
// parallelism and in every recompute mode, at the lesson's shape and at one drawn from the
// run's seed; then the exercise's attention core, keeping P and recomputing it: its outputs and
// gradients against the library's core, the bytes it keeps measured, every bit of the
// recomputing core against the keeping one, and that its backward uses a P it computed again
// (a P kept off the device, where the byte count does not look, shows there).
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>

#include "device/cpu_device.hpp"
#include "device/ops/cpu_ops.hpp"
#include "kept_bytes.hpp"
#include "layers/causal_attention.hpp"
#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "problem.hpp"
#include "rank_shards.hpp"
#include "registry/make_scheme.hpp"
#include "scheme/scheme.hpp"
#include "tolerance.hpp"

namespace tplab::lessons::activation_memory {
namespace {

// b, s, h, n: m = 16 tokens, head_dim 6, so that the scale 1/sqrt(6) rounds (a power of two
// would not, and a P recomputed with the scale elsewhere would keep forward's bits)
constexpr BlockShape kShape{2, 8, 24, 4};
constexpr std::array<Recompute, 3> kModes = {Recompute::none, Recompute::selective,
                                             Recompute::full};

// ---- Part "predict"

/// The lesson's shape, and one drawn from the run's seed (a grade draws a fresh one): every
/// shape splits its 4 heads and its tokens over 1, 2 and 4 ranks.
std::array<BlockShape, 2> prediction_shapes() {
  std::mt19937_64 draw(input_seed(16));
  const auto pick = [&](std::initializer_list<std::int64_t> choices) {
    return *(choices.begin() + static_cast<std::ptrdiff_t>(draw() % choices.size()));
  };
  return {kShape, BlockShape{pick({2, 4, 6}), pick({4, 8, 12}), pick({16, 32}), 4}};
}

/// One configuration the prediction is checked at.
struct Case {
  BlockShape shape;
  bool sequence_parallel = false;
  Recompute mode = Recompute::none;

  std::string text() const {
    return fmt::format("{} recompute {} at {}", sequence_parallel ? "1d-sp" : "1d",
                       recompute_name(mode), to_string(shape));
  }
};

std::vector<Case> prediction_cases() {
  std::vector<Case> cases;
  for (const BlockShape& shape : prediction_shapes()) {
    for (bool sp : {false, true}) {
      for (Recompute mode : kModes) cases.push_back({shape, sp, mode});
    }
  }
  return cases;
}

/// What the library's block keeps on this rank from forward for backward, in elements: the
/// device's own account of the storage live once forward has run and its input and output are
/// let go, less what was live before. Collective.
std::int64_t measured_kept_elements(Lesson& lesson, const Case& c) {
  SchemeOptions options;
  options.training.recompute = c.mode;
  const auto scheme = make_scheme(c.sequence_parallel ? "1d-sp" : "1d", options);
  verify::RankShards mine = verify::shard_for_rank(
      lesson.device(),
      verify::make_inputs(c.shape, input_seed(160), Workload::block, verify::Values::real),
      scheme->placements(lesson.size(), c.shape, Workload::block), lesson.rank(), DType::f64);
  auto block = scheme->make_module(lesson.world(), lesson.device(), c.shape, Workload::block,
                                   std::move(mine.parameters));
  const std::size_t kept =
      verify::forward_and_measure_kept(lesson.device(), *block, std::move(mine.x));
  return static_cast<std::int64_t>(kept / dtype_size(DType::f64));
}

/// What a wrong count most likely missed, from its difference with the measured one.
std::string diagnose(const Case& c, int t, double got, double want) {
  const BlockShape& s = c.shape;
  const double m = static_cast<double>(s.tokens()), h = static_cast<double>(s.h);
  const double split = c.sequence_parallel ? t : 1;
  const double diff = got - want;
  const double probabilities = static_cast<double>(s.b * (s.heads / t) * s.s * s.s);
  if (c.mode == Recompute::full) {
    return fmt::format(
        "full keeps the block's input x alone, in the layout the block receives it: {} here",
        c.sequence_parallel ? "its token block [m/t, h]" : "whole, [m, h]");
  }
  if (diff == probabilities && c.mode == Recompute::selective) {
    return "you kept P [b n/t, s, s], which selective computes again in backward";
  }
  if (diff == -probabilities) return "P [b n/t, s, s] is missing: without recompute it is kept";
  if (std::abs(diff) == 2 * m / split) {
    return "LayerNorm's 1/std: one value per token row for each of the two LayerNorms";
  }
  if (std::abs(diff) == (4 * m * h + 2 * m) * (t - 1) / t) {
    return c.sequence_parallel
               ? "sequence parallelism splits the tensors outside the linears (x, LN1's output, "
                 "x1, LN2's output and the 1/std) by tokens"
               : "without sequence parallelism the tensors outside the linears are whole on "
                 "every rank";
  }
  return "count again tensor by tensor: README, \"What the block keeps\"";
}

void check_prediction(Lesson& lesson) {
  const int t = lesson.size();
  const std::vector<Case> cases = prediction_cases();
  std::vector<double> measured, predicted;
  for (const Case& c : cases) {
    measured.push_back(static_cast<double>(measured_kept_elements(lesson, c)));
  }
  for (const Case& c : cases) {
    predicted.push_back(
        static_cast<double>(predicted_kept_elements(c.shape, t, c.sequence_parallel, c.mode)));
  }
  const auto count = static_cast<std::int64_t>(cases.size());
  static const TensorPlacement place = replicated("kept", {count}, t);
  Tensor got = lesson.device().empty({count}, DType::f64);
  lesson.device().upload(predicted, got);
  const std::vector<double>& yours =
      lesson.expect("kept", host_array({count}, measured), place, got, exact_tolerance());
  std::vector<std::string> wrong;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (yours[i] == measured[i]) continue;
    wrong.push_back(fmt::format("element {} ({}): measured {:g}, yours {:g}: {}", i,
                                cases[i].text(), measured[i], yours[i],
                                diagnose(cases[i], t, yours[i], measured[i])));
  }
  constexpr std::size_t kShown = 3;  // the first few: one cause usually explains the rest
  const std::string more =
      wrong.size() > kShown ? fmt::format("; and {} more", wrong.size() - kShown) : "";
  if (wrong.size() > kShown) wrong.resize(kShown);
  lesson.explain("kept", fmt::format("elements kept per rank at t = {}; {}{}", t,
                                     fmt::join(wrong, "; "), more));
  if (lesson.speaks()) {
    fmt::print("the library's 1D block, measured on the device (elements kept per rank, t = {}):\n",
               t);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      fmt::print("  {:<52} {:>8g}\n", cases[i].text(), measured[i]);
    }
  }
  lesson.report("kept elements: your count against the library's block, measured (exact)");
}

// ---- Parts "core" and "selective"

/// q, k, v and dctx [m, h], this rank holding the columns of its heads, and what the library's
/// core (verified against the reference by every `tplab verify`) gives for them whole.
struct CoreProblem {
  verify::HostArrays in;    ///< "q", "k", "v", "dctx"
  verify::HostArrays want;  ///< "ctx", "dq", "dk", "dv"
  TensorPlacement place;    ///< columns by rank: Shard(1) over tp
};

CoreProblem make_core_problem(Lesson& lesson) {
  const int t = lesson.size();
  const std::int64_t m = kShape.tokens(), h = kShape.h;
  CoreProblem p;
  p.place = blocked("q", {m, h}, "Shard(1) over tp", t, 1, t, [](int r) {
    return std::pair<std::int64_t, std::int64_t>{0, r};
  });
  std::uint64_t seed = 161;
  for (const char* name : {"q", "k", "v", "dctx"}) {
    p.in.emplace(name, host_array({m, h}, draw(m * h, seed++, false)));
  }
  Device& device = lesson.device();
  const auto whole = [&](const char* name) {
    Tensor x = device.empty({m, h}, DType::f64);
    device.upload(p.in.at(name).values, x);
    return x;
  };
  CausalAttention core(device, kShape.b, kShape.heads, kShape.head_dim());
  Tensor ctx = core.forward(whole("q"), whole("k"), whole("v"));
  Tensor dq, dk, dv;
  core.backward(whole("dctx"), dq, dk, dv);
  for (auto [name, tensor] :
       {std::pair{"ctx", &ctx}, std::pair{"dq", &dq}, std::pair{"dk", &dk}, std::pair{"dv", &dv}}) {
    std::vector<double> values(static_cast<std::size_t>(m * h));
    device.download(*tensor, values);
    p.want.emplace(name, host_array({m, h}, std::move(values)));
  }
  return p;
}

/// The elements the core keeps on one rank: q, k, v's columns, and P of its heads with none.
double expected_core_elements(int t, Recompute mode) {
  const double qkv = 3.0 * static_cast<double>(kShape.tokens() * kShape.h / t);
  const double probs = static_cast<double>(kShape.b * kShape.heads / t * kShape.s * kShape.s);
  return qkv + (mode == Recompute::none ? probs : 0.0);
}

/// Runs the exercise's core with `mode` on this rank's heads; queues ctx, dq, dk, dv against the
/// library's core and the elements it kept, measured; returns the values queued (the
/// exercise's, in a judge), in that order.
std::vector<std::vector<double>> check_core(Lesson& lesson, const CoreProblem& p, Recompute mode,
                                            const std::string& title) {
  const int t = lesson.size();
  Device& device = lesson.device();
  const Tolerance tolerance = verify::tolerance_for(DType::f64, false);
  Tensor q = lesson.shard(p.in.at("q"), p.place), k = lesson.shard(p.in.at("k"), p.place),
         v = lesson.shard(p.in.at("v"), p.place);
  AttentionCore core(device, kShape.b, kShape.heads / t, kShape.head_dim(), mode);
  // live before forward, less the inputs, which the caller lets go of once forward has run
  const std::size_t before = device.allocations().live_bytes() - q.bytes() - k.bytes() - v.bytes();
  Tensor ctx = core.forward(q, k, v);
  std::vector<std::vector<double>> got{
      lesson.expect("ctx", p.want.at("ctx"), p.place, ctx, tolerance)};
  ctx = Tensor();
  q = Tensor();
  k = Tensor();
  v = Tensor();
  const double kept =
      static_cast<double>(device.allocations().live_bytes() - before) / dtype_size(DType::f64);
  Tensor dq, dk, dv;
  core.backward(lesson.shard(p.in.at("dctx"), p.place), dq, dk, dv);
  for (auto [name, tensor] : {std::pair{"dq", &dq}, std::pair{"dk", &dk}, std::pair{"dv", &dv}}) {
    got.push_back(lesson.expect(name, p.want.at(name), p.place, *tensor, tolerance));
  }
  static const TensorPlacement kept_place = replicated("kept", {1}, t);
  Tensor measured = device.empty({1}, DType::f64);
  device.upload(std::vector<double>{kept}, measured);
  const double want = expected_core_elements(t, mode);
  lesson.expect("kept", host_array({1}, {want}), kept_place, measured, exact_tolerance());
  lesson.explain(
      "kept", fmt::format("elements the core keeps between forward and backward, measured on the "
                          "device: q, k, v of this rank's heads ({} x [m, h/t]){}",
                          3,
                          mode == Recompute::none
                              ? " and P [b n/t, s, s]"
                              : "; P is computed again in backward, never kept (nor the "
                                "scores it comes from)"));
  lesson.report(title);
  return got;
}

/// Queues, per rank, how many elements of ctx, dq, dk, dv differ in their bits between the
/// recomputing core and the keeping one (all four must be 0).
void check_bits(Lesson& lesson, const std::vector<std::vector<double>>& keeping,
                const std::vector<std::vector<double>>& recomputing) {
  const int p = lesson.size();
  std::vector<double> differing;
  for (std::size_t i = 0; i < keeping.size(); ++i) {
    double count = 0;
    for (std::size_t e = 0; e < keeping[i].size(); ++e) {
      count += std::memcmp(&keeping[i][e], &recomputing[i][e], sizeof(double)) != 0 ? 1 : 0;
    }
    differing.push_back(count);
  }
  static const TensorPlacement place =
      blocked("bits", {p, 4}, "Shard(0) over tp", p, p, 1, [](int r) {
        return std::pair<std::int64_t, std::int64_t>{r, 0};
      });
  Tensor measured = lesson.device().empty({1, 4}, DType::f64);
  lesson.device().upload(differing, measured);
  lesson.expect_measured("bits", host_array({p, 4}, std::vector<double>(4 * p, 0.0)), place,
                         measured, exact_tolerance());
  lesson.explain("bits",
                 "elements of [ctx, dq, dk, dv] whose bits differ from the core that keeps P, per "
                 "rank: recompute P by forward's own operations, in forward's order, on the same "
                 "q_ and k_ (the same batched_matmul, then causal_softmax_forward with the same "
                 "scale), so that backward reads the very P forward used");
  lesson.report("selective against none: every bit of ctx, dq, dk, dv (exact)");
}

/// The CPU's causal softmax, its forward's every probability scaled by 1 + 2^-10 while `nudged`:
/// a core that computes P again in backward then gets other gradients, and one that reads a P
/// kept from forward, wherever it kept it, the same ones.
class NudgedSoftmax final : public SoftmaxOps {
 public:
  explicit NudgedSoftmax(std::unique_ptr<SoftmaxOps> inner) : inner_(std::move(inner)) {}
  void causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) override {
    inner_->causal_softmax_forward(scores, scale, probs);
    if (!nudged) return;
    double* p = probs.data_as<double>();  // a CPU tensor in f64: its storage is the host's
    for (std::int64_t e = 0; e < probs.numel(); ++e) p[e] *= 1.0 + 1.0 / 1024;
  }
  void causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                               Tensor& dscores) override {
    inner_->causal_softmax_backward(probs, dprobs, scale, dscores);
  }
  bool nudged = false;

 private:
  std::unique_ptr<SoftmaxOps> inner_;
};

/// dq, dk, dv of `core` for `dctx`, after its forward, on the host.
std::vector<double> gradients_of(Device& device, AttentionCore& core, const Tensor& dctx) {
  Tensor dq, dk, dv;
  core.backward(dctx, dq, dk, dv);
  std::vector<double> all;
  for (const Tensor* grad : {&dq, &dk, &dv}) {
    std::vector<double> values(static_cast<std::size_t>(grad->numel()));
    device.download(*grad, values);
    all.insert(all.end(), values.begin(), values.end());
  }
  return all;
}

/// Elements of `a` and `b` whose bits differ.
double differing_bits(const std::vector<double>& a, const std::vector<double>& b) {
  double count = 0;
  for (std::size_t e = 0; e < a.size() && e < b.size(); ++e) {
    count += std::memcmp(&a[e], &b[e], sizeof(double)) != 0 ? 1 : 0;
  }
  return count +
         static_cast<double>(a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
}

/// Queues, per rank, what shows that the recomputing core keeps P nowhere, run on a CPU device
/// of the check's own: whether its gradients change when the softmax that backward runs is
/// nudged (1: backward reads the P it computes again), and how many elements of dq, dk, dv
/// differ in their bits when another core's forward on other inputs came between its forward
/// and its backward (0: it reads only its own q_ and k_). A P kept off the device, where the
/// byte count does not look (a host copy, a static, a recomputation for show), fails the first.
void check_recomputation(Lesson& lesson, const CoreProblem& p) {
  const int t = lesson.size();
  DeviceFamilies families = cpu::make_families();
  auto nudged = std::make_unique<NudgedSoftmax>(std::move(families.softmax));
  NudgedSoftmax& softmax = *nudged;
  families.softmax = std::move(nudged);
  CpuDevice device(std::move(families));
  const BlockRange& mine = p.place.blocks.at(static_cast<std::size_t>(lesson.rank()));
  const auto input = [&](const char* name) {  // this rank's columns of q, k, v or dctx
    Tensor x = device.empty({mine.rows, mine.cols}, DType::f64);
    device.upload(p.in.at(name).block(mine), x);
    return x;
  };
  const Tensor q = input("q"), k = input("k"), v = input("v"), dctx = input("dctx");
  const auto core = [&] {
    return AttentionCore(device, kShape.b, kShape.heads / t, kShape.head_dim(),
                         Recompute::selective);
  };
  AttentionCore plain = core(), nudging = core(), first = core(), second = core();
  plain.forward(q, k, v);
  const std::vector<double> alone = gradients_of(device, plain, dctx);
  nudging.forward(q, k, v);
  softmax.nudged = true;  // backward's softmax only
  const double responds = differing_bits(alone, gradients_of(device, nudging, dctx)) > 0 ? 1 : 0;
  softmax.nudged = false;
  first.forward(q, k, v);
  second.forward(k, q, v);  // other scores, so another P
  const double differing = differing_bits(alone, gradients_of(device, first, dctx));

  static const TensorPlacement place =
      blocked("recomputed", {t, 2}, "Shard(0) over tp", t, t, 1, [](int r) {
        return std::pair<std::int64_t, std::int64_t>{r, 0};
      });
  Tensor measured = lesson.device().empty({1, 2}, DType::f64);
  lesson.device().upload(std::vector<double>{responds, differing}, measured);
  std::vector<double> want;
  for (int r = 0; r < t; ++r) want.insert(want.end(), {1.0, 0.0});
  lesson.expect("recomputed", host_array({t, 2}, want), place, measured, exact_tolerance());
  lesson.explain("recomputed",
                 "per rank: [1 when dq, dk, dv change as the softmax backward runs is nudged, "
                 "elements of dq, dk, dv that differ in their bits when another core's forward "
                 "came between this core's forward and its backward]: selective keeps P "
                 "nowhere, on the device or off it (no host copy, no static), and backward uses "
                 "the P it computes again from this core's own q_ and k_");
  lesson.report("selective computes P again in backward and uses it (exact)");
}

void run(Lesson& lesson) {
  const int t = lesson.size();
  require_world_size(lesson, kShape.heads % t == 0,
                     fmt::format("lesson 16 gives each rank whole heads of the {}", kShape.heads),
                     {1, 2, 4});
  const CoreProblem problem = make_core_problem(lesson);
  lesson.print_shards({{"q, k, v, ctx", "[m, h_T]", &problem.place}});
  if (lesson.speaks()) {
    for (int r = 0; r < t; ++r) {
      fmt::print("  rank {}: heads {}..{} of {}, P [b n_T, s, s] = [{}, {}, {}]\n", r,
                 r * kShape.heads / t, (r + 1) * kShape.heads / t - 1, kShape.heads,
                 kShape.b * kShape.heads / t, kShape.s, kShape.s);
    }
  }
  lesson.part("predict", [&] { check_prediction(lesson); });
  std::vector<std::vector<double>> keeping;
  lesson.part("core", [&] {
    keeping = check_core(lesson, problem, Recompute::none,
                         "the core keeping P: ctx, dq, dk, dv against the library's core (f64 "
                         "tolerance), kept elements measured (exact)");
  });
  lesson.part("selective", [&] {
    lesson.require_part("core", "selective is held bit for bit to the core that keeps P");
    const std::vector<std::vector<double>> recomputing =
        check_core(lesson, problem, Recompute::selective,
                   "the core recomputing P: ctx, dq, dk, dv against the library's core (f64 "
                   "tolerance), kept elements measured (exact)");
    check_bits(lesson, keeping, recomputing);
    check_recomputation(lesson, problem);
  });
}

}  // namespace
}  // namespace tplab::lessons::activation_memory

int main() {
  return tplab::lessons::run_lesson("lesson 16", tplab::lessons::activation_memory::run);
}
