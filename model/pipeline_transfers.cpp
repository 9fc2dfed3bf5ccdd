/// @file
/// pipeline_transfers: M micro-batches, each crossing every stage boundary twice.
#include "pipeline_transfers.hpp"

#include "core/error.hpp"
#include "registry/make_scheme.hpp"

namespace tplab::model {

PipelineTransfers pipeline_transfers(std::string_view scheme, const SchemeOptions& options,
                                     int world_size, const gpt::GptShape& micro, int rank,
                                     const gpt::GptStage& stage, int micro_batches) {
  check(options.dp == 1 && options.pp == 1,
        "pipeline_transfers: give one replica's scheme on one stage (dp = 1, pp = 1)");
  const auto placements =
      make_scheme(scheme, options)->placements(world_size, micro.block, Workload::block);
  std::int64_t elements = 1;
  for (std::int64_t e : find_placement(placements, "x").local_extents(rank)) elements *= e;
  const int neighbours = (stage.first() ? 0 : 1) + (stage.last() ? 0 : 1);
  // forward: from the stage before, to the stage after; backward: the other way
  const std::int64_t each_way = static_cast<std::int64_t>(micro_batches) * neighbours;
  return {.sends = each_way, .receives = each_way, .elements_each = elements};
}

}  // namespace tplab::model
