#include "scheme/scheme.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"

namespace tplab {

ExecutionPolicy execution_policy_of(const SchemeOptions& options) {
  return {.overlap = options.overlap, .regather = options.regather};
}

std::vector<int> Scheme::usable_world_sizes(const BlockShape& shape, int limit) const {
  std::vector<int> sizes;
  for (int p = 1; p <= limit; ++p) {
    if (why_not(p, shape).empty()) sizes.push_back(p);
  }
  return sizes;
}

void Scheme::validate(int world_size, const BlockShape& shape) const {
  if (world_size < 1) {
    throw UsageError(fmt::format("a run needs at least one rank; got {}", world_size));
  }
  if (const std::string problem = shape_problem(shape); !problem.empty()) {
    throw UsageError(fmt::format("shape {}: {}", to_string(shape), problem));
  }
  if (const std::string why = shape_refusal(shape); !why.empty()) throw UsageError(why);
  if (const std::string why = refusal(world_size, shape); !why.empty()) throw UsageError(why);
}

std::string Scheme::refusal(int world_size, const BlockShape& shape) const {
  // A shape no world size can take: naming world sizes would not help.
  if (std::string why = shape_refusal(shape); !why.empty()) return why;
  const std::string why = why_not(world_size, shape);
  if (why.empty()) return {};
  const std::vector<int> sizes = usable_world_sizes(shape, 64);
  std::string would_work = alternatives(sizes) + " ranks";
  if (sizes.empty()) would_work = "a rank count that no world of up to 64 ranks has";
  if (sizes == std::vector<int>{1}) would_work = "1 rank";
  return fmt::format("{} {}; got {}", why, would_work, world_size);
}

std::string alternatives(const std::vector<int>& sizes) {
  if (sizes.empty()) return "none";
  std::string text = std::to_string(sizes.front());
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    text += (i + 1 == sizes.size() ? " or " : ", ") + std::to_string(sizes[i]);
  }
  return text;
}

bool is_parameter(std::string_view tensor) {
  return std::find(kBlockParameters.begin(), kBlockParameters.end(), tensor) !=
         kBlockParameters.end();
}

std::vector<TensorPlacement> with_gradients(std::vector<TensorPlacement> placements) {
  const std::size_t n = placements.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_parameter(placements[i].tensor)) continue;
    TensorPlacement grad = placements[i];
    grad.tensor = gradient_name(grad.tensor);
    placements.push_back(std::move(grad));
  }
  return placements;
}

}  // namespace tplab
