/// @file
/// gpt_activation_elements: the blocks' model times L, and the parts' model.
#include "gpt_activations.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "rank_cost.hpp"
#include "registry/make_scheme.hpp"
#include "scheme_costs.hpp"

namespace tplab::model {

std::int64_t gpt_parts_kept_elements(std::string_view scheme, const SchemeOptions& options,
                                     int world_size, const gpt::GptShape& shape) {
  const SchemeCostModel& model = cost_model_of(scheme);
  if (model.gpt_parts_kept == nullptr) {
    throw InternalError(
        fmt::format("the cost model of '{}' has no formula for what the GPT keeps around its "
                    "blocks (SchemeCostModel::gpt_parts_kept)",
                    scheme));
  }
  return model.gpt_parts_kept(*make_scheme(scheme, options), options, world_size, shape);
}

std::int64_t gpt_activation_elements(std::string_view scheme, const SchemeOptions& options,
                                     int world_size, const gpt::GptShape& shape, int rank,
                                     const gpt::GptStage& stage) {
  check(options.dp == 1 && options.pp == 1,
        "gpt_activation_elements: give one replica's scheme on one stage (dp = 1, pp = 1)");
  const RankCost block = rank_cost(scheme, options, world_size, shape.block, Workload::block);
  return stage.layers(shape) * block.activation_elements_of(rank) +
         (stage.last() ? gpt_parts_kept_elements(scheme, options, world_size, shape) : 0);
}

}  // namespace tplab::model
