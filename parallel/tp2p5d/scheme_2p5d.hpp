/// @file
/// Scheme2p5D: Tesseract-style 2.5D tensor parallelism on d layers of q x q meshes.
#pragma once

#include "scheme/execution_policy.hpp"
#include "scheme/scheme.hpp"

namespace tplab::tp2p5d {

/// d depth layers, each a 2D mesh running SUMMA on its own tokens (tokens are split d*q ways:
/// layer k holds token blocks k*q .. k*q+q-1). Weights are replicated over the layers while
/// their data differ, so every parameter gradient is all-reduced over the depth group.
/// Wang et al. 2021, "Tesseract", arXiv 2105.14500.
class Scheme2p5D final : public Scheme {
 public:
  /// options.depth 0 picks d for each world size: d = p / q^2 with the largest usable q. With
  /// options.overlap, SUMMA starts each step's broadcasts during the previous step's product,
  /// and the depth all-reduces of the gradients are all started before any is waited for.
  /// The blocks drop and recompute as options.training says.
  explicit Scheme2p5D(const SchemeOptions& options = {})
      : depth_(options.depth), policy_{.overlap = options.overlap}, training_(options.training) {}
  std::string name() const override { return "2.5d"; }
  std::vector<int> default_world_sizes() const override;
  std::string describe_grid(int world_size, const BlockShape& shape) const override;
  std::string why_not(int world_size, const BlockShape& shape) const override;
  std::vector<TensorPlacement> placements(int world_size, const BlockShape& shape,
                                          Workload workload) const override;
  std::unique_ptr<ParallelModule> make_module(Comm& world, Device& device, const BlockShape& shape,
                                              Workload workload,
                                              TensorMap parameters) const override;

  /// The depth used at `world_size` (the chosen one, or the automatic choice), 0 if none fits.
  int depth_for(int world_size, const BlockShape& shape) const override;

 private:
  int depth_;
  ExecutionPolicy policy_;
  BlockTraining training_;
};

}  // namespace tplab::tp2p5d
