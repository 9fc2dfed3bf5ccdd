/// @file
/// GptShape: its description, its rules and the extents of the model's own parameters.
#include "gpt/gpt_shape.hpp"

#include <fmt/format.h>

#include <string>

namespace tplab::gpt {

std::string to_string(const GptShape& shape) {
  return fmt::format("{} V={} L={}", tplab::to_string(shape.block), shape.vocab, shape.layers);
}

std::string gpt_shape_problem(const GptShape& shape) {
  if (std::string problem = shape_problem(shape.block); !problem.empty()) return problem;
  if (shape.vocab < 2) {
    return fmt::format("a vocabulary of {} tokens leaves nothing to predict; use at least 2",
                       shape.vocab);
  }
  if (shape.layers < 1) return fmt::format("{} blocks: a GPT needs at least 1", shape.layers);
  // The logits [b*s, V], the embedding [V, h] and the blocks' 12 h^2 weights per layer.
  if (!f64_bytes_fit_int64({shape.block.b, shape.block.s, shape.vocab}) ||
      !f64_bytes_fit_int64({shape.vocab, shape.block.h}) ||
      !f64_bytes_fit_int64({shape.layers, 12, shape.block.h, shape.block.h})) {
    return fmt::format(
        "its tensors (b*s x V logits, V x h embedding, L x 12 h^2 weights) hold more bytes than a "
        "64-bit integer counts ({}); use smaller sizes",
        to_string(shape));
  }
  return {};
}

Extents gpt_extents(std::string_view tensor, const GptShape& shape) {
  const std::int64_t h = shape.block.h, v = shape.vocab;
  if (tensor == "embedding") return {v, h};
  if (tensor == "lnf_gamma" || tensor == "lnf_beta") return {h};
  if (tensor == "w_head") return {h, v};
  if (tensor == "b_head") return {v};
  if (tensor == "logits") return {shape.block.tokens(), v};
  return global_extents(tensor, shape.block);
}

int stage_holding(std::string_view name, const GptShape& shape, int stages) {
  if (name == "embedding") return 0;
  if (!name.starts_with("layer")) return stages - 1;  // the final LayerNorm and the head
  const std::int64_t layer = std::stoll(std::string(name.substr(5, name.find('.') - 5)));
  return static_cast<int>(layer / (shape.layers / stages));
}

std::string layer_parameter(std::string_view parameter, std::int64_t layer) {
  return fmt::format("layer{}.{}", layer, parameter);
}

std::vector<std::string> parameter_names(const GptShape& shape) {
  std::vector<std::string> names{"embedding"};
  for (std::int64_t l = 0; l < shape.layers; ++l) {
    for (std::string_view name : kBlockParameters) names.push_back(layer_parameter(name, l));
  }
  for (std::string_view name : kModelParameters) {
    if (name != "embedding") names.emplace_back(name);
  }
  return names;
}

}  // namespace tplab::gpt
