// Lesson 04 checker: the exercise's attention inside the library's block, then the exercise's
// whole block, each against the single-device reference block: y, dx and every gradient.
#include <fmt/format.h>

#include "harness.hpp"
#include "layers/activation.hpp"
#include "layers/layernorm.hpp"
#include "layers/pre_ln_block.hpp"
#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "problem.hpp"
#include "tp1d/mlp_1d.hpp"
#include "tp1d/scheme_1d.hpp"

namespace tplab::lessons::block_1d {
namespace {

constexpr BlockShape kShape{2, 4, 16, 4};  // b, s, h, n: m = 8 tokens, head_dim 4

void run(Lesson& lesson) {
  const int t = lesson.size();
  require_world_size(lesson, kShape.heads % t == 0,
                     fmt::format("lesson 04 gives each rank whole heads of the {}", kShape.heads),
                     {1, 2, 4});
  const verify::HostArrays in =
      verify::make_inputs(kShape, input_seed(5), Workload::block, verify::Values::real);
  const verify::HostArrays want = verify::reference_outputs(kShape, in, Workload::block);
  // The 1D scheme's own placements: Wq, Wk, Wv, W1 by columns, Wo, W2 by rows.
  const std::vector<TensorPlacement> places =
      tp1d::Scheme1D().placements(t, kShape, Workload::block);
  const auto place = [&](std::string_view name) -> const TensorPlacement& {
    return find_placement(places, name);
  };
  lesson.print_shards({{"X", "[m, h]", &place("x")},
                       {"LN gamma", "[h]", &place("ln1_gamma")},
                       {"Wq", "[h, h_T]", &place("wq")},
                       {"bq", "[h_T]", &place("bq")},
                       {"Wo", "[h_T, h]", &place("wo")},
                       {"bo", "[h]", &place("bo")},
                       {"W1", "[h, 4h_T]", &place("w1")},
                       {"W2", "[4h_T, h]", &place("w2")}});
  if (lesson.speaks()) {
    fmt::print("  (Wk, Wv as Wq; each rank holds {} of the {} heads whole)\n", kShape.heads / t,
               kShape.heads);
  }
  TensorMap p;
  for (std::string_view name : kBlockParameters) {
    p.emplace(std::string(name), lesson.shard(in.find(name)->second, place(name)));
  }
  Device& device = lesson.device();
  Comm& tp = lesson.world();
  const auto layernorm = [&](const char* gamma, const char* beta) {
    return std::make_unique<LayerNorm>(device, nullptr, nullptr, kShape.h, p.at(gamma), p.at(beta));
  };
  const Tolerance tolerance = verify::tolerance_for(DType::f64, false);
  const auto shard = [&](const char* name) { return lesson.shard(in.at(name), place(name)); };
  // The exercise's attention inside the library's block, then the exercise's whole block.
  std::unique_ptr<ParallelModule> library_block, block;
  lesson.part("forward", [&] {
    library_block = std::make_unique<PreLnBlock>(
        device, layernorm("ln1_gamma", "ln1_beta"), make_attention(device, tp, kShape, p),
        layernorm("ln2_gamma", "ln2_beta"),
        std::make_unique<tp1d::Mlp1D>(device, tp, p, Activation::gelu));
    lesson.expect("y", want.at("y"), place("y"), library_block->forward(shard("x")), tolerance);
    lesson.report("forward: your attention in the library's block (f64 tolerance)");
    block = make_block(device, tp, kShape, p);
    lesson.expect("y", want.at("y"), place("y"), block->forward(shard("x")), tolerance);
    lesson.report("forward: your block (f64 tolerance)");
  });
  // Backward of one block: dx and every gradient, everything checked but y.
  const auto check_backward = [&](ParallelModule& module, const std::string& title) {
    const Tensor dx = module.backward(shard("dy"));
    TensorMap got = module.gradients();  // valid after backward
    got.emplace("dx", dx);
    for (const std::string& name : verify::checked_tensors(Workload::block)) {
      if (name != "y") lesson.expect(name, want.at(name), place(name), got.at(name), tolerance);
    }
    lesson.report(title);
  };
  lesson.part("backward", [&] {
    lesson.require_part("forward", "backward runs on the activations forward keeps");
    check_backward(*library_block,
                   "backward: your attention in the library's block (f64 "
                   "tolerance)");
    check_backward(*block, "backward: your block (f64 tolerance)");
  });
}

}  // namespace
}  // namespace tplab::lessons::block_1d

int main() {
  return tplab::lessons::run_lesson("lesson 04", tplab::lessons::block_1d::run);
}
