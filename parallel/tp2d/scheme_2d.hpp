/// @file
/// Scheme2D: Optimus-style 2D tensor parallelism on a q x q mesh.
#pragma once

#include "grid/grid_2d.hpp"
#include "layers/block_dropout.hpp"
#include "scheme/execution_policy.hpp"
#include "scheme/scheme.hpp"

namespace tplab::tp2d {

/// Activations [m, h] and weights [in, out] are cut into q x q blocks; rank (i, j) holds block
/// (i, j) of each. Biases and LayerNorm parameters are cut into q column blocks; every rank of
/// column j holds block j.
class Scheme2D final : public Scheme {
 public:
  /// With options.overlap, SUMMA starts each step's broadcasts during the previous step's
  /// product; the blocks drop and recompute as options.training says.
  explicit Scheme2D(const SchemeOptions& options = {})
      : policy_{.overlap = options.overlap}, training_(options.training) {}
  std::string name() const override { return "2d"; }
  std::vector<int> default_world_sizes() const override { return {4, 9}; }
  std::string describe_grid(int world_size, const BlockShape&) const override {
    return "q=" + std::to_string(square_root(world_size));
  }
  std::string why_not(int world_size, const BlockShape& shape) const override;
  std::vector<TensorPlacement> placements(int world_size, const BlockShape& shape,
                                          Workload workload) const override;
  std::unique_ptr<ParallelModule> make_module(Comm& world, Device& device, const BlockShape& shape,
                                              Workload workload,
                                              TensorMap parameters) const override;

 private:
  ExecutionPolicy policy_;
  BlockTraining training_;
};

/// The placements of 2.5D with `depth` layers (2D is depth 1): rank (i, j, k) holds token block
/// k*q + i of d*q and feature block j of activations, block (i, j) of each weight, and block j
/// of each bias and LayerNorm parameter.
std::vector<TensorPlacement> mesh_placements(int world_size, int depth, const BlockShape& shape,
                                             Workload workload);

/// The block (or linear pair) of one q x q mesh whose ranks hold `batch` sequences each.
/// Parameter gradients come out summed over the mesh's columns, as 2D needs them.
std::unique_ptr<ParallelModule> make_mesh_module(Device& device, Grid2D& grid,
                                                 const BlockShape& shape, std::int64_t batch,
                                                 Workload workload, const TensorMap& parameters,
                                                 ExecutionPolicy policy = {},
                                                 std::shared_ptr<BlockDropout> dropout = nullptr,
                                                 Recompute recompute = Recompute::none);

}  // namespace tplab::tp2d
