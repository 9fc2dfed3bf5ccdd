// Lesson 04, the library's answer: Attention1D, and the PreLnBlock the 1D scheme assembles
// (LayerNorms on whole rows, Attention1D, Mlp1D).
#include "layers/activation.hpp"
#include "layers/layernorm.hpp"
#include "layers/pre_ln_block.hpp"
#include "lesson.hpp"
#include "tp1d/attention_1d.hpp"
#include "tp1d/mlp_1d.hpp"

namespace tplab::lessons::block_1d {

std::unique_ptr<Sublayer> make_attention(Device& device, Comm& tp, const BlockShape& shape,
                                         const TensorMap& p) {
  return std::make_unique<tp1d::Attention1D>(device, tp, shape, p);
}

std::unique_ptr<ParallelModule> make_block(Device& device, Comm& tp, const BlockShape& shape,
                                           const TensorMap& p) {
  // LayerNorm sees whole rows and replicated parameters: no group for either.
  const auto layernorm = [&](const char* gamma, const char* beta) {
    return std::make_unique<LayerNorm>(device, nullptr, nullptr, shape.h, p.at(gamma), p.at(beta));
  };
  return std::make_unique<PreLnBlock>(
      device, layernorm("ln1_gamma", "ln1_beta"), make_attention(device, tp, shape, p),
      layernorm("ln2_gamma", "ln2_beta"),
      std::make_unique<tp1d::Mlp1D>(device, tp, p, Activation::gelu));
}

}  // namespace tplab::lessons::block_1d
