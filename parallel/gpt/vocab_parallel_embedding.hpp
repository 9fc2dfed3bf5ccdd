/// @file
/// VocabParallelEmbedding: the token embedding with its vocabulary split over a group of ranks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/placement.hpp"

namespace tplab::gpt {

/// x[token] = E[id(token)] + PE[token's position], with E [V, h] cut by rows (token ids) over
/// `group` and by columns (features) as the scheme's activations are (Megatron's
/// VocabParallelEmbedding, generalised to every layout here).
///
/// Each rank of the group holds E[ids v0..v0+V/g, this rank's features] and looks up, for
/// every token the group covers, the ids it owns, leaving zeros where another rank owns the
/// id. Exactly one rank of the group contributes each token's row, so summing the partial
/// lookups over the group assembles the rows exactly:
///
///   forward:  P = lookup(E shard, ids of the group's tokens)  [group tokens, features]
///             all_reduce(P) when every rank of the group holds all of them (1D), or
///             reduce_scatter(P) when each holds its own block of them (2D, 2.5D, 3D)
///             x = P + PE                                      [own tokens, features]
///   backward: dP = dx (1D) or all_gather(dx) over the group    [group tokens, features]
///             dE shard = sum over the tokens whose id it owns of dP[token], in token order
///
/// The position embedding is the fixed sinusoid (sinusoidal_positions.hpp): no parameter, so
/// no gradient and no communication for it.
class VocabParallelEmbedding {
 public:
  /// How the group sums its partial lookups.
  enum class Combine {
    all_reduce,      ///< every rank of the group holds every token the group covers
    reduce_scatter,  ///< rank r of the group holds the r-th row block of those tokens
  };

  /// `table`: this rank's E shard, its ids starting at `first_id`. The group covers
  /// `group_tokens` tokens from `group_first_token` on. `own`: the rows (tokens) and columns
  /// (features) of the [m, h] activation this rank holds. `s`, `h`: sequence length and hidden
  /// size, for the positions.
  VocabParallelEmbedding(Device& device, Comm& group, Combine combine, Tensor table,
                         std::int64_t first_id, std::int64_t group_first_token,
                         std::int64_t group_tokens, const BlockRange& own, std::int64_t s,
                         std::int64_t h);

  /// The ids of all m tokens of the batch -> this rank's activation block [own rows, own cols].
  Tensor forward(std::span<const std::int64_t> ids);
  /// dx of this rank's block -> the gradient of its E shard.
  void backward(const Tensor& dx);

  /// The gradient of this rank's E shard (valid after backward).
  const Tensor& table_grad() const { return table_grad_; }

 private:
  Device& device_;
  Comm& group_;
  Combine combine_;
  Tensor table_;
  std::int64_t first_id_, group_first_token_, group_tokens_;
  BlockRange own_;
  Tensor positions_;                // PE at this rank's tokens and features
  std::vector<std::int64_t> rows_;  // the group's token ids, shifted to this shard's rows
  Tensor table_grad_;
};

}  // namespace tplab::gpt
