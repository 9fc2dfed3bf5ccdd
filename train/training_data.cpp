/// @file
/// Synthetic batches: random starts, then the successor table.
#include "training_data.hpp"

#include <numeric>
#include <random>
#include <utility>

namespace tplab::train {

std::vector<std::int64_t> successor_table(std::int64_t vocab, std::uint64_t seed) {
  std::vector<std::int64_t> next(static_cast<std::size_t>(vocab));
  std::iota(next.begin(), next.end(), 0);
  std::mt19937_64 engine(seed);
  // Fisher-Yates with the engine's raw output, which every platform draws alike.
  for (std::size_t i = next.size() - 1; i > 0; --i) {
    std::swap(next[i], next[engine() % (i + 1)]);
  }
  return next;
}

Batch synthetic_batch(const gpt::GptShape& shape, std::uint64_t seed, std::int64_t step) {
  const std::vector<std::int64_t> next = successor_table(shape.vocab, seed);
  std::mt19937_64 engine(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(step) + 1);
  Batch batch;
  for (std::int64_t b = 0; b < shape.block.b; ++b) {
    std::int64_t token =
        static_cast<std::int64_t>(engine() % static_cast<std::uint64_t>(shape.vocab));
    for (std::int64_t t = 0; t < shape.block.s; ++t) {
      batch.ids.push_back(token);
      token = next[static_cast<std::size_t>(token)];
      batch.targets.push_back(token);
    }
  }
  return batch;
}

}  // namespace tplab::train
