#include "block_training_options.hpp"

#include "choice.hpp"
#include "value_checks.hpp"

namespace tplab::app {

void add_block_training_options(CLI::App& command, BlockTraining& training) {
  training.dropout.seed = kDefaultDropoutSeed;
  command
      .add_option("--dropout", training.dropout.p,
                  "P: dropout on the attention probabilities and on each sublayer's output, "
                  "masks drawn from Philox keyed by (seed, step, layer, site, the element's "
                  "global place), so every rank draws the single-device masks")
      ->check(dropout_probability_check())
      ->capture_default_str();
  command.add_option("--dropout-seed", training.dropout.seed, "with --dropout: the masks' seed")
      ->check(seed_check())
      ->capture_default_str();
  add_recompute_option(command, training);
}

CLI::Option* add_recompute_option(CLI::App& command, BlockTraining& training) {
  return add_choice(command, "--recompute", training.recompute, kRecomputeNames,
                    "what the blocks compute again in backward instead of keeping: none; "
                    "selective (the attention probabilities, from q and k); full (each block "
                    "keeps only its input and runs forward again); its memory and FLOPs count "
                    "where a model prices a run");
}

CLI::Option* add_dropout_keying_option(CLI::App& command, BlockTraining& training) {
  return add_choice(command, "--dropout-keying", training.dropout_keying, kDropoutKeyingNames,
                    "with --dropout: global (right); rank-seed (each rank seeds its own masks) or "
                    "local (masks by the place in the rank's own shard): the two bugs frameworks "
                    "shipped, to see them fail");
}

}  // namespace tplab::app
