// Lesson 15 checker: four pieces of tensor-parallel training, each against the single-device
// answer. The global gradient norm of sharded and replicated gradients (f64 tolerance); the
// softmax and loss over a padded vocabulary split by columns, from the exercise's masked logits
// (f64 tolerance); the gradients of a sequence-parallel LayerNorm's gamma and beta and one SGD
// step of a replicated parameter, both exact (integer inputs). Where a wrong answer is what a
// bug of the field gives, the note under the table says which, from the numbers themselves.
#include <fmt/format.h>

#include <cmath>

#include "lesson.hpp"
#include "lessons/common/lesson.hpp"

namespace tplab::lessons::field_bugs {
namespace {

constexpr std::int64_t kTokens = 8;  // m = b*s = 2*4
constexpr std::int64_t kHidden = 8;  // h; the MLP's 4h = 32
constexpr std::int64_t kVocab = 21;  // V, padded to Vp, a multiple of 4t (Megatron: 128t)

using Block = std::pair<std::int64_t, std::int64_t>;

/// Vp: V rounded up to a multiple of 4t, so that every rank's shard has Vp/t columns.
std::int64_t padded_vocab(int t) {
  const std::int64_t multiple = 4 * t;
  return (kVocab + multiple - 1) / multiple * multiple;
}

/// Rank r's block of columns: Shard(1) over tp.
TensorPlacement column_shard(std::string name, Extents global, int t) {
  return blocked(std::move(name), std::move(global), "Shard(1)", t, 1, t, [](int r) {
    return Block{0, r};
  });
}

/// Rank r's block of rows: Shard(0) over tp (tokens, or a weight's input features).
TensorPlacement row_shard(std::string name, Extents global, int t) {
  return blocked(std::move(name), std::move(global), "Shard(0)", t, t, 1, [](int r) {
    return Block{r, 0};
  });
}

/// Rank 0's `value` on every rank: one broadcast over the world, so that a note on a tensor
/// every rank holds reads the same everywhere.
double rank0_value(Lesson& lesson, double value) {
  Tensor t = lesson.device().empty({1}, DType::f64);
  lesson.device().fill(t, value);
  lesson.world().broadcast(t, 0);
  std::vector<double> host(1);
  lesson.device().download(t, host);
  return host[0];
}

/// The sum of `values` over the world: one all-reduce.
std::vector<double> world_sum(Lesson& lesson, const std::vector<double>& values) {
  Device& device = lesson.device();
  Tensor t = device.empty({static_cast<std::int64_t>(values.size())}, DType::f64);
  device.upload(values, t);
  lesson.world().all_reduce(t);
  std::vector<double> sum(values.size());
  device.download(t, sum);
  return sum;
}

double sum_of_squares(const HostArray& a) {
  double sum = 0;
  for (double v : a.values) sum += v * v;
  return sum;
}

/// a == b within a relative 1e-9: a sum of squares recognised under the round-off of a norm.
bool nearly_equal(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(b), 1.0);
}

// ---- Part "norm"

/// What the exercise's norm `got` is, from the sharded tensors' sum of squares S and the
/// replicated ones' R at t ranks.
std::string norm_note(double got, double s, double r, int t) {
  const double squared = got * got;
  std::string text = fmt::format(
      "your norm is {:.9g}, the reference's {:.9g} (train --clip prints the two each step). "
      "Squared: {:.9g}, where the sharded gradients' squares sum to S = {:g} and the replicated "
      "ones' to R = {:g}",
      got, std::sqrt(s + r), squared, s, r);
  if (nearly_equal(squared, s + t * r)) {
    return text + fmt::format(
                      ". {:.9g} = S + {} R: every rank added its copy of the replicated tensors "
                      "before the all-reduce, so the sum counted them t = {} times. Each element "
                      "of the model counts once: the shards summed over the group, the "
                      "replicated tensors once",
                      squared, t, t);
  }
  if (nearly_equal(squared, s / t + r) || nearly_equal(squared, s / t + t * r)) {
    return text + ": the shards were not summed over the group (each rank's own only)";
  }
  return text + ": the norm must be sqrt(S + R)";
}

void check_norm(Lesson& lesson) {
  const int t = lesson.size();
  const std::int64_t h = kHidden, ffn = 4 * kHidden;
  const HostArray w1 = host_array({h, ffn}, draw(h * ffn, 151, true));
  const HostArray w2 = host_array({ffn, h}, draw(ffn * h, 152, true));
  const HostArray b2 = host_array({h}, draw(h, 153, true));
  const HostArray gamma = host_array({h}, draw(h, 154, true));
  const TensorPlacement w1_place = column_shard("d_W1", w1.extents, t);
  const TensorPlacement w2_place = row_shard("d_W2", w2.extents, t);
  const TensorPlacement b2_place = replicated("d_b2", b2.extents, t);
  const TensorPlacement gamma_place = replicated("d_gamma", gamma.extents, t);
  lesson.print_shards({{"d_W1", "[h, 4h_T]", &w1_place},
                       {"d_W2", "[4h_T, h]", &w2_place},
                       {"d_b2", "[h]", &b2_place},
                       {"d_gamma", "[h]", &gamma_place}});
  Device& device = lesson.device();
  const double norm = global_gradient_norm(
      device, lesson.world(), {lesson.shard(w1, w1_place), lesson.shard(w2, w2_place)},
      {lesson.shard(b2, b2_place), lesson.shard(gamma, gamma_place)});
  Tensor got = device.empty({1}, DType::f64);
  device.fill(got, norm);
  const double s = sum_of_squares(w1) + sum_of_squares(w2);
  const double r = sum_of_squares(b2) + sum_of_squares(gamma);
  const TensorPlacement norm_place = replicated("norm", {1}, t);
  const std::vector<double>& values =
      lesson.expect("norm", host_array({1}, {std::sqrt(s + r)}), norm_place, got,
                    verify::tolerance_for(DType::f64, false));
  lesson.explain("norm", norm_note(rank0_value(lesson, values.at(0)), s, r, t));
  lesson.report("the global gradient norm of d_W1, d_W2 (sharded), d_b2 and d_gamma (replicated)");
}

// ---- Part "padding"

/// The target word of token i: every one a real word.
std::int64_t target_of(std::int64_t i) {
  return (5 * i + 3) % kVocab;
}

/// The softmax over the first V columns of `logits` [m, Vp] (the rest 0) and the loss
/// -log p[target] of each token: the single-device answer, which knows no padding.
std::pair<HostArray, HostArray> reference_softmax(const HostArray& logits) {
  const std::int64_t vp = logits.extents.at(1);
  HostArray probs{logits.extents, std::vector<double>(logits.values.size(), 0.0)};
  HostArray loss{{kTokens}, {}};
  for (std::int64_t i = 0; i < kTokens; ++i) {
    double sum = 0;
    for (std::int64_t c = 0; c < kVocab; ++c) sum += std::exp(logits.values[i * vp + c]);
    for (std::int64_t c = 0; c < kVocab; ++c) {
      probs.values[i * vp + c] = std::exp(logits.values[i * vp + c]) / sum;
    }
    loss.values.push_back(-std::log(probs.values[i * vp + target_of(i)]));
  }
  return {probs, loss};
}

/// What the vocabulary-parallel softmax makes of this rank's masked shard `logits` [m, Vp/t]
/// (global columns from `first`): its probabilities, each row's sum of exponentials taken over
/// the whole padded vocabulary (one all-reduce), and every token's loss (one more). The logits
/// are small, so no maximum is subtracted.
std::pair<Tensor, Tensor> parallel_softmax(Lesson& lesson, const Tensor& logits,
                                           std::int64_t first) {
  Device& device = lesson.device();
  const std::int64_t cols = logits.cols();
  std::vector<double> e(static_cast<std::size_t>(logits.numel()));
  device.download(logits, e);
  std::vector<double> sums(kTokens, 0.0);
  for (std::int64_t i = 0; i < kTokens; ++i) {
    for (std::int64_t c = 0; c < cols; ++c) {
      double& v = e[static_cast<std::size_t>(i * cols + c)];
      v = std::exp(v);  // exp(-inf) = 0: a masked column takes nothing
      sums[i] += v;
    }
  }
  sums = world_sum(lesson, sums);
  std::vector<double> target_probs(kTokens, 0.0);
  for (std::int64_t i = 0; i < kTokens; ++i) {
    for (std::int64_t c = 0; c < cols; ++c) e[i * cols + c] /= sums[i];
    const std::int64_t local = target_of(i) - first;
    if (local >= 0 && local < cols) target_probs[i] = e[i * cols + local];
  }
  std::vector<double> loss = world_sum(lesson, target_probs);
  for (double& v : loss) v = -std::log(v);
  Tensor probs = device.empty(logits.extents(), DType::f64);
  device.upload(e, probs);
  Tensor losses = device.empty({kTokens}, DType::f64);
  device.upload(loss, losses);
  return {probs, losses};
}

void check_padding(Lesson& lesson) {
  const int t = lesson.size();
  const std::int64_t vp = padded_vocab(t), cols = vp / t, first = lesson.rank() * cols;
  // The padded words' logits are whatever their rows of the output layer give: not -inf.
  const HostArray logits = host_array({kTokens, vp}, draw(kTokens * vp, 161, true));
  const auto [ref_probs, ref_loss] = reference_softmax(logits);
  const TensorPlacement place = column_shard("logits", logits.extents, t);
  const TensorPlacement probs_place = column_shard("probabilities", logits.extents, t);
  const TensorPlacement loss_place = replicated("loss", {kTokens}, t);
  lesson.print_shards({{"logits", "[m, Vp_T]", &place}});
  if (lesson.speaks()) {
    fmt::print("  V = {} words padded to Vp = {}: global columns {}..{} are padding\n", kVocab, vp,
               kVocab, vp - 1);
  }
  Tensor shard = lesson.shard(logits, place);
  mask_padded_logits(lesson.device(), shard, first, kVocab);
  const auto [probs, loss] = parallel_softmax(lesson, shard, first);
  const std::vector<double>& got = lesson.expect("probabilities", ref_probs, probs_place, probs,
                                                 verify::tolerance_for(DType::f64, false));
  lesson.expect("loss", ref_loss, loss_place, loss, verify::tolerance_for(DType::f64, false));
  double padded_mass = 0;
  for (std::int64_t i = 0; i < kTokens; ++i) {
    for (std::int64_t c = std::max<std::int64_t>(kVocab - first, 0); c < cols; ++c) {
      padded_mass += got.at(static_cast<std::size_t>(i * cols + c));
    }
  }
  padded_mass = world_sum(lesson, {padded_mass}).at(0) / kTokens;
  const std::string mass = fmt::format(
      "the padded columns hold {:.1f}% of a token's probability on average; rank r's shard is "
      "the global columns r x {} .. r x {} + {}, and a column is padding where its global index "
      "is V = {} or more",
      100 * padded_mass, cols, cols, cols - 1, kVocab);
  lesson.explain("probabilities", mass);
  lesson.explain("loss",
                 "the loss of a padded vocabulary equals the unpadded one only when the padding "
                 "takes no probability: " +
                     mass);
  lesson.report(
      fmt::format("the softmax and the loss over V = {} words padded to Vp = {}", kVocab, vp));
}

// ---- Part "layernorm"

void check_layernorm(Lesson& lesson) {
  const int t = lesson.size();
  const std::int64_t m = kTokens, h = kHidden;
  const HostArray dy = host_array({m, h}, draw(m * h, 171, true));
  const HostArray xhat = host_array({m, h}, draw(m * h, 172, true));
  HostArray d_gamma{{h}, std::vector<double>(h, 0.0)}, d_beta{{h}, std::vector<double>(h, 0.0)};
  for (std::int64_t i = 0; i < m * h; ++i) {
    d_gamma.values[i % h] += dy.values[i] * xhat.values[i];
    d_beta.values[i % h] += dy.values[i];
  }
  const TensorPlacement dy_place = row_shard("dy", dy.extents, t);
  const TensorPlacement xhat_place = row_shard("xhat", xhat.extents, t);
  const TensorPlacement whole = replicated("d_gamma", {h}, t);
  lesson.print_shards({{"dy", "[m_T, h]", &dy_place},
                       {"xhat", "[m_T, h]", &xhat_place},
                       {"d_gamma, d_beta", "[h]", &whole}});
  Device& device = lesson.device();
  Tensor got_gamma = device.empty({h}, DType::f64), got_beta = device.empty({h}, DType::f64);
  // Each rank's sums over its own m/t tokens: what LayerNorm's backward gives it.
  device.layernorm_backward_params(lesson.shard(dy, dy_place), lesson.shard(xhat, xhat_place),
                                   got_gamma, got_beta);
  std::vector<double> own(static_cast<std::size_t>(h));
  device.download(got_gamma, own);
  reduce_sequence_parallel_gradients(device, lesson.world(), got_gamma, got_beta);
  const std::vector<double>& values =
      lesson.expect("d_gamma", d_gamma, whole, got_gamma, exact_tolerance());
  lesson.expect("d_beta", d_beta, whole, got_beta, exact_tolerance());
  const bool own_only = lesson.on_every_rank(values == own);
  const std::string why = fmt::format(
      "gamma and beta are replicated, but under sequence parallelism each rank's LayerNorm sees "
      "only its m/t = {} tokens, so its d_gamma and d_beta are partial sums over them: the "
      "gradient is their sum over the group (an all-reduce)",
      m / t);
  const std::string text =
      own_only ? "every rank kept the sum over its own tokens only, and each copy of gamma and "
                 "beta would take its own step. " +
                     why
               : why;
  lesson.explain("d_gamma", text);
  lesson.explain("d_beta", text);
  lesson.report("the gradients of a sequence-parallel LayerNorm's gamma and beta, exact");
}

// ---- Part "update"

void check_update(Lesson& lesson) {
  const int t = lesson.size();
  const std::int64_t h = kHidden;
  constexpr double kLearningRate = 0.5;  // a power of 2: the step is exact
  const HostArray p = host_array({h}, draw(h, 181, true));
  const HostArray g = host_array({h}, draw(h, 182, true));
  HostArray stepped = p;
  for (std::int64_t i = 0; i < h; ++i) stepped.values[i] -= kLearningRate * g.values[i];
  const TensorPlacement place = replicated("p", {h}, t);
  lesson.print_shards({{"p, g", "[h]", &place}});
  Tensor param = lesson.shard(p, place);
  sgd_step_replicated(lesson.device(), lesson.world(), param, lesson.shard(g, place),
                      kLearningRate);
  const std::vector<double>& values = lesson.expect("p", stepped, place, param, exact_tolerance());
  const double unchanged = world_sum(lesson, {values == p.values ? 1.0 : 0.0}).at(0);
  lesson.explain(
      "p", fmt::format("{:g} of the {} ranks still {} p as it was before the step. A replicated "
                       "parameter is one copy per rank, and every copy must take the same step "
                       "(train checks every replica bitwise after each step); copies that part "
                       "make the next forward mix two models",
                       unchanged, t, unchanged == 1 ? "holds" : "hold"));
  lesson.report(
      fmt::format("one SGD step of a replicated parameter, lr = {:g}, exact", kLearningRate));
}

void run(Lesson& lesson) {
  require_world_size(lesson, lesson.size() == 2 || lesson.size() == 4,
                     "lesson 15's bugs show where a tensor-parallel group has more than one rank, "
                     "and its m = 8 tokens split over t ranks",
                     {2, 4});
  lesson.part("norm", [&] { check_norm(lesson); });
  lesson.part("padding", [&] { check_padding(lesson); });
  lesson.part("layernorm", [&] { check_layernorm(lesson); });
  lesson.part("update", [&] { check_update(lesson); });
}

}  // namespace
}  // namespace tplab::lessons::field_bugs

int main() {
  return tplab::lessons::run_lesson("lesson 15", tplab::lessons::field_bugs::run);
}
