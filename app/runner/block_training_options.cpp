#include "block_training_options.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "option_checks.hpp"

namespace tplab::app {

SchemeOptions BlockTrainingOptions::applied_to(SchemeOptions options) const {
  options.training.dropout = {dropout, dropout_seed};
  options.training.dropout_keying = keying == "rank-seed" ? DropoutKeying::rank_seed
                                    : keying == "local"   ? DropoutKeying::local
                                                          : DropoutKeying::global;
  options.training.recompute = parse_recompute(recompute);
  return options;
}

Recompute parse_recompute(const std::string& name) {
  if (name == "none") return Recompute::none;
  if (name == "selective") return Recompute::selective;
  if (name == "full") return Recompute::full;
  throw UsageError(fmt::format("--recompute {}: the modes are none, selective and full", name));
}

void add_block_training_options(CLI::App& command, BlockTrainingOptions& o) {
  command
      .add_option("--dropout", o.dropout,
                  "P: dropout on the attention probabilities and on each sublayer's output, "
                  "masks drawn from Philox keyed by (seed, step, layer, site, the element's "
                  "global place), so every rank draws the single-device masks")
      ->check(dropout_probability_check())
      ->capture_default_str();
  command.add_option("--dropout-seed", o.dropout_seed, "the masks' seed")
      ->check(seed_check())
      ->capture_default_str();
  command
      .add_option("--dropout-keying", o.keying,
                  "global (right); rank-seed (each rank seeds its own masks) or local (masks by "
                  "the place in the rank's own shard): the two bugs, to see them fail")
      ->check(CLI::IsMember({"global", "rank-seed", "local"}))
      ->capture_default_str();
  command
      .add_option("--recompute", o.recompute,
                  "none; selective (the attention probabilities computed again in backward from "
                  "q and k); full (each block keeps only its input and runs forward again)")
      ->check(CLI::IsMember({"none", "selective", "full"}))
      ->capture_default_str();
}

}  // namespace tplab::app
