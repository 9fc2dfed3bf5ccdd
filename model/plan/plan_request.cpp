/// @file
/// The checks a plan's request must pass before any layout is judged.
#include "plan/plan_request.hpp"

#include <fmt/format.h>

#include <utility>

#include "core/error.hpp"

namespace tplab::model::plan {
namespace {

void check_model(const PlanRequest& r) {
  const std::pair<const char*, std::int64_t> sizes[] = {{"--layers", r.model.layers},
                                                        {"--hidden", r.model.hidden},
                                                        {"--heads", r.model.heads},
                                                        {"--seq", r.model.seq},
                                                        {"--vocab", r.model.vocab},
                                                        {"--global-batch", r.batch.global_batch},
                                                        {"--micro-batch", r.batch.micro_batch},
                                                        {"--gpus", r.devices},
                                                        {"--ranks-per-node", r.ranks_per_node}};
  for (const auto& [option, value] : sizes) {
    if (value < 1) throw UsageError(fmt::format("{} {}: give a positive integer", option, value));
  }
  if (r.model.hidden % r.model.heads != 0) {
    throw UsageError(
        fmt::format("--hidden {} is not divisible by --heads {}", r.model.hidden, r.model.heads));
  }
  if (r.batch.micro_batch > r.batch.global_batch) {
    throw UsageError(fmt::format("--micro-batch {} is larger than --global-batch {}",
                                 r.batch.micro_batch, r.batch.global_batch));
  }
}

void check_cluster(const PlanRequest& r) {
  if (!(r.efficiency > 0 && r.efficiency <= 1)) {
    throw UsageError(fmt::format(
        "--efficiency {}: give the share of the peak FLOP rate reached, above 0 and at most 1",
        r.efficiency));
  }
  if (!(r.memory_bytes > 0)) {
    throw UsageError(fmt::format("--memory-gib {}: give a positive size",
                                 r.memory_bytes / (1024.0 * 1024.0 * 1024.0)));
  }
  if (r.devices > r.ranks_per_node && r.devices % r.ranks_per_node != 0) {
    throw UsageError(fmt::format(
        "--gpus {} does not fill nodes of {} (--ranks-per-node): a plan puts whole nodes to "
        "work; give a multiple of {}, such as {}",
        r.devices, r.ranks_per_node, r.ranks_per_node,
        (r.devices / r.ranks_per_node + 1) * r.ranks_per_node));
  }
  if (r.devices > r.ranks_per_node && !r.hardware.inter_node) {
    throw UsageError(fmt::format(
        "hardware '{}' has no inter-node link, so every device must be on one node of {}; {} "
        "are more: use --gpus up to {}, or a profile of a cluster such as dgx-h100",
        r.hardware.name, r.ranks_per_node, r.devices, r.ranks_per_node));
  }
}

}  // namespace

void check_request(const PlanRequest& request) {
  check_model(request);
  check_cluster(request);
}

}  // namespace tplab::model::plan
