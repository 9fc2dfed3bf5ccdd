/// @file
/// DataParallelScheme: D replicas of a tensor-parallel scheme, side by side on one mesh.
#pragma once

#include <functional>
#include <memory>

#include "mesh/mesh_layout.hpp"
#include "scheme/scheme.hpp"

namespace tplab {

/// Data parallelism around a scheme (SchemeOptions::dp = D > 1; make_scheme builds it). The
/// world of D x P ranks is a MeshLayout: replica r runs the scheme on its P consecutive ranks
/// over sequences [r b/D, (r+1) b/D) of the batch, and after backward each rank's gradient
/// shards are summed over its DP group (reduce_over_replicas), so every replica holds the
/// gradient of the whole batch. The scheme's grid is split from the replica's communicator and
/// never sees dp: a collective issued on the wrong group has one place to live. Replica r's
/// blocks draw their dropout masks for sequences from r b/D on (BlockTraining::first_sequence),
/// as the single-device block draws them for the whole batch.
class DataParallelScheme final : public Scheme {
 public:
  /// Builds the replicated scheme from its options.
  using SchemeFactory = std::function<std::unique_ptr<Scheme>(const SchemeOptions&)>;
  /// `replicas` copies of the scheme `make_replica` builds from `replica_options` (dp = 1),
  /// their gradients gathered as `buckets` says.
  DataParallelScheme(SchemeFactory make_replica, const SchemeOptions& replica_options, int replicas,
                     GradientBuckets buckets);

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

  /// The scheme every replica runs, on world_size / D ranks.
  const Scheme& replica_scheme() const { return *replica_; }
  /// D.
  int replicas() const { return replicas_; }
  /// How the gradients are gathered for the DP all-reduce.
  GradientBuckets buckets() const { return buckets_; }
  /// The mesh of a world of `world_size` ranks (which D divides).
  MeshLayout mesh(int world_size) const { return {replicas_, world_size / replicas_}; }

 private:
  SchemeFactory make_replica_;
  SchemeOptions replica_options_;
  std::unique_ptr<Scheme> replica_;
  int replicas_;
  GradientBuckets buckets_;
};

}  // namespace tplab
