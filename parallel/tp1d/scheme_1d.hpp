/// @file
/// Scheme1D: Megatron-style tensor parallelism over one group of t ranks.
#pragma once

#include "scheme/scheme.hpp"

namespace tplab::tp1d {

/// Activations replicated; Wq, Wk, Wv, W1 split by columns; Wo, W2 split by rows.
class Scheme1D final : public Scheme {
 public:
  std::string name() const override { return "1d"; }
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
};

}  // namespace tplab::tp1d
