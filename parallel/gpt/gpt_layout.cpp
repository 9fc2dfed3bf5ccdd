/// @file
/// The rules a GPT shape must meet, and where its parameters live.
#include "gpt/gpt_layout.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tplab::gpt {

std::int64_t padded_vocab(const GptLayout& layout, int world_size, const GptShape& shape) {
  const std::int64_t parts = layout.vocab_parts(world_size, shape);
  if (parts <= 0) return shape.vocab;
  return (shape.vocab + parts - 1) / parts * parts;
}

std::vector<TensorPlacement> gpt_parameter_placements(const Scheme& scheme, const GptLayout& layout,
                                                      int world_size, const GptShape& shape) {
  std::vector<TensorPlacement> out = layout.placements(world_size, shape);
  const std::vector<TensorPlacement> block =
      scheme.placements(world_size, shape.block, Workload::block);
  for (std::int64_t l = 0; l < shape.layers; ++l) {
    for (std::string_view name : kBlockParameters) {
      TensorPlacement p = find_placement(block, name);
      p.tensor = layer_parameter(name, l);
      out.push_back(std::move(p));
    }
  }
  return out;
}

void validate_gpt(const Scheme& scheme, const GptLayout& layout, int world_size,
                  const GptShape& shape) {
  if (const std::string problem = gpt_shape_problem(shape); !problem.empty()) {
    throw UsageError(fmt::format("shape {}: {}", to_string(shape), problem));
  }
  scheme.validate(world_size, shape.block);
  if (const std::string why = layout.why_not(world_size, shape); !why.empty()) {
    throw UsageError(why);
  }
}

}  // namespace tplab::gpt
