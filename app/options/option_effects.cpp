#include "option_effects.hpp"

#include <array>

namespace tplab::app {
namespace {

bool drops(const PlannedRun& run) {
  return run.block && run.options.training.dropout.p > 0;
}

constexpr std::array<EffectRule<PlannedRun>, 8> kSharedRules = {{
    {"--depth", [](const PlannedRun& r) { return r.scheme == "2.5d"; },
     "it sets 2.5D's depth, and no run here is 2.5d (--scheme 2.5d)"},
    {"--regather", [](const PlannedRun& r) { return r.scheme == "3d"; },
     "it is 3D's (gather X~ and W~ again in backward), and no run here is 3d (--scheme 3d)"},
    {"--dp-buckets", [](const PlannedRun& r) { return r.options.dp > 1; },
     "it says how data-parallel replicas reduce their gradients, and every run here is one "
     "replica (add --dp D with D > 1)"},
    {"--schedule", [](const PlannedRun& r) { return r.options.pp > 1; },
     "it orders the micro-batches of a pipeline's stages, and every run here is one stage (add "
     "--pp S with S > 1)"},
    {"--dropout", [](const PlannedRun& r) { return r.block; },
     "the exact check runs the linear pair Y = (X W1 + b1) W2 + b2, which drops nothing; drop "
     "without --exact"},
    {"--dropout-seed", drops,
     "it seeds the dropout masks, and no run here drops anything (add --dropout P with P > 0)"},
    {"--dropout-keying", drops,
     "it keys the dropout masks, and no run here drops anything (add --dropout P with P > 0)"},
    {"--recompute", [](const PlannedRun& r) { return r.block; },
     "the exact check runs the linear pair, which keeps nothing to recompute; recompute without "
     "--exact"},
}};

}  // namespace

std::vector<PlannedRun> runs_of(const std::vector<std::string>& schemes,
                                const SchemeOptions& options) {
  std::vector<PlannedRun> runs;
  for (const std::string& scheme : schemes) runs.push_back({.scheme = scheme, .options = options});
  return runs;
}

void refuse_without_effect(const CLI::App& command, const std::vector<PlannedRun>& runs) {
  refuse_without_effect(command, std::span<const EffectRule<PlannedRun>>(kSharedRules), runs);
}

}  // namespace tplab::app
