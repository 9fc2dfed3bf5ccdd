/// @file
/// Choosing a scheme's GptLayout, and the rules a GPT shape must meet.
#include "gpt/gpt_layout.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "gpt/gpt_layout_1d.hpp"
#include "gpt/gpt_layout_3d.hpp"
#include "gpt/gpt_layout_mesh.hpp"

namespace tplab::gpt {

std::unique_ptr<GptLayout> make_gpt_layout(std::string_view name, const SchemeOptions& options) {
  if (name == "1d") return std::make_unique<GptLayout1D>(false);
  if (name == "1d-sp") return std::make_unique<GptLayout1D>(true);
  if (name == "2d") return std::make_unique<GptLayoutMesh>(false, 1);
  if (name == "2.5d") return std::make_unique<GptLayoutMesh>(true, options.depth);
  if (name == "3d") return std::make_unique<GptLayout3D>();
  throw UsageError(
      fmt::format("scheme '{}' has no GPT layout yet (known: 1d, 1d-sp, 2d, 2.5d, 3d)", name));
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
