/// @file
/// The training data of the tiny GPT: synthetic sequences with a structure it can learn.
#pragma once

#include <cstdint>
#include <vector>

#include "gpt/gpt_shape.hpp"

namespace tplab::train {

/// The token ids and targets of one batch: b sequences of s tokens, token-major.
struct Batch {
  std::vector<std::int64_t> ids;      ///< [m] the input tokens
  std::vector<std::int64_t> targets;  ///< [m] the token that follows each input token
};

/// The successor table of the data: a permutation of 0..V-1 drawn from `seed`.
std::vector<std::int64_t> successor_table(std::int64_t vocab, std::uint64_t seed);

/// Batch `step` of the data: each sequence starts at a random token (drawn from `seed` and
/// `step`) and every next token is the successor of the one before. A model that learns the
/// successor table predicts every target, so the loss falls from about log V towards 0. The
/// same on every rank and every platform (std::mt19937_64, no std distributions).
Batch synthetic_batch(const gpt::GptShape& shape, std::uint64_t seed, std::int64_t step);

}  // namespace tplab::train
