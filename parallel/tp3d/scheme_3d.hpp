/// @file
/// Scheme3D: 3D tensor parallelism (Bian et al. 2021) on a cube of q x q x q ranks.
#pragma once

#include "grid/grid_3d.hpp"
#include "scheme/execution_policy.hpp"
#include "scheme/scheme.hpp"

namespace tplab::tp3d {

/// Every activation and weight is split over two axes of the cube, every bias and LayerNorm
/// parameter over one. On rank (i, j, k) (see Grid3D), with m = b*s tokens:
///
///   x, y, dy, dx         [m/q^2, h/q]     token block j*q + i, feature block k
///   Wq, Wk, Wv, W1       [in/q^2, out/q]  row block k*q + j, column block i  (kReadsBlockLayout)
///   bq, bk, bv, b1       [out/q]          block i, the same on the q^2 ranks of output_weight
///   Wo, W2               [in/q^2, out/q]  row block i*q + j, column block k  (kWritesBlockLayout)
///   bo, b2               [out/q]          block k, the same on the q^2 ranks of input_weight
///   LN gammas and betas  [h/q]            block k, the same on the q^2 ranks of input_weight
///
/// The LayerNorms are the generic LayerNorm: a token's features lie on the q ranks of its
/// output group (the feature group), and their parameters' gradients are summed over
/// input_weight (the replica group). Attention and MLP: see Attention3D and Mlp3D.
class Scheme3D final : public Scheme {
 public:
  /// options.regather: gather X~ and W~ again in backward instead of keeping them from
  /// forward. With options.overlap, the next linear's W~ is gathered during the current
  /// product, and each linear's reduce-scatter of dW travels while dX~ is computed. The blocks
  /// drop and recompute as options.training says.
  explicit Scheme3D(const SchemeOptions& options = {})
      : policy_(execution_policy_of(options)), training_(options.training) {}

  std::string name() const override { return "3d"; }
  std::vector<int> default_world_sizes() const override { return {8, 27}; }
  std::string describe_grid(int world_size, const BlockShape&) const override {
    return "q=" + std::to_string(cube_side(world_size));
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

}  // namespace tplab::tp3d
