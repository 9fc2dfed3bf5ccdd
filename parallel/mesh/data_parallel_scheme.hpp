/// @file
/// DataParallelScheme: D replicas of a tensor-parallel scheme, side by side on one mesh.
#pragma once

#include <functional>
#include <memory>

#include "mesh/mesh_layout.hpp"
#include "scheme/scheme.hpp"

namespace tplab {

/// Data parallelism around a scheme's block (SchemeOptions::dp = D > 1; make_scheme builds it).
/// The world of D x P ranks is the MeshLayout of mesh_of: replica r runs the scheme on its P
/// consecutive ranks over sequences [r b/D, (r+1) b/D) of the batch with the options of
/// replica_options_of_rank, and after backward each rank's gradient shards are summed over its
/// DP group (reduce_over_replicas), so every replica holds the gradient of the whole batch. The
/// scheme's grid is split from the replica's communicator and never sees dp: a collective
/// issued on the wrong group has one place to live. The trainer's GPT and the cost model reach
/// the replica through the same functions (mesh/mesh_layout.hpp).
class DataParallelScheme final : public Scheme {
 public:
  /// Builds the replicated scheme from its options.
  using SchemeFactory = std::function<std::unique_ptr<Scheme>(const SchemeOptions&)>;
  /// options.dp copies of the scheme `make_replica` builds from replica_options(options), their
  /// gradients gathered as options.dp_buckets says.
  DataParallelScheme(SchemeFactory make_replica, const SchemeOptions& options);

  /// The replicated scheme's name: "1d", "2d", ...
  std::string name() const override { return replica_->name(); }
  std::string why_not(int world_size, const BlockShape& shape) const override;
  std::string shape_refusal(const BlockShape& shape) const override;
  /// The replicated scheme's world sizes, times D.
  std::vector<int> default_world_sizes() const override;
  /// "dp=2 t=2", "dp=2 q=2 d=2".
  std::string describe_grid(int world_size, const BlockShape& shape) const override;
  int depth_for(int world_size, const BlockShape& shape) const override;
  std::vector<TensorPlacement> placements(int world_size, const BlockShape& shape,
                                          Workload workload) const override;
  std::unique_ptr<ParallelModule> make_module(Comm& world, Device& device, const BlockShape& shape,
                                              Workload workload,
                                              TensorMap parameters) const override;

 private:
  SchemeFactory make_replica_;
  SchemeOptions options_;
  std::unique_ptr<Scheme> replica_;
  int replicas_;
};

}  // namespace tplab
