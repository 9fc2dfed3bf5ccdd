#include "scheme/block_training.hpp"

#include <fmt/format.h>

namespace tplab {

std::string describe_block_training(const BlockTraining& training) {
  std::string text;
  if (training.dropout.p > 0) {
    text += fmt::format(" | dropout {:g} (seed {}, keying {})", training.dropout.p,
                        training.dropout.seed, dropout_keying_name(training.dropout_keying));
  }
  if (training.recompute != Recompute::none) {
    text += fmt::format(" | recompute {}", recompute_name(training.recompute));
  }
  return text;
}

nlohmann::json block_training_json(const BlockTraining& training) {
  return {{"dropout",
           {{"p", training.dropout.p},
            {"seed", training.dropout.seed},
            {"keying", dropout_keying_name(training.dropout_keying)}}},
          {"recompute", recompute_name(training.recompute)}};
}

}  // namespace tplab
