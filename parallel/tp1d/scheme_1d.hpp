/// @file
/// Scheme1D: Megatron-style tensor parallelism over one group of t ranks, with or without
/// sequence parallelism.
#pragma once

#include "scheme/execution_policy.hpp"
#include "scheme/scheme.hpp"
#include "tp1d/mode_1d.hpp"

namespace tplab::tp1d {

/// "1d": activations replicated; Wq, Wk, Wv, W1 split by columns; Wo, W2 split by rows.
/// "1d-sp" (sequence parallelism): the same weights; the block's input, output and gradients
/// split by tokens, rank r holding rows [r*m/t, (r+1)*m/t) of the m = b*s tokens.
class Scheme1D final : public Scheme {
 public:
  /// The scheme `mode` describes ("1d-sp" with sequence parallelism, "1d" without), run with
  /// `options`' overlap, its blocks with their dropout and recomputation.
  explicit Scheme1D(Mode1D mode = {}, const SchemeOptions& options = {})
      : mode_(mode), policy_(execution_policy_of(options)), training_(options.training) {}
  std::string name() const override { return mode_.sequence_parallel ? "1d-sp" : "1d"; }
  std::vector<int> default_world_sizes() const override { return {1, 2, 4}; }
  std::string describe_grid(int world_size, const BlockShape&) const override {
    return "t=" + std::to_string(world_size);
  }
  std::string why_not(int world_size, const BlockShape& shape) const override;
  std::vector<TensorPlacement> placements(int world_size, const BlockShape& shape,
                                          Workload workload) const override;
  std::unique_ptr<ParallelModule> make_module(Comm& world, Device& device, const BlockShape& shape,
                                              Workload workload,
                                              TensorMap parameters) const override;

 private:
  Mode1D mode_;
  ExecutionPolicy policy_;
  BlockTraining training_;
};

}  // namespace tplab::tp1d
