/// @file
/// DataParallelModule: one rank's replica of a scheme's module, with the DP gradient reduction.
#pragma once

#include <memory>

#include "mesh/gradient_reduction.hpp"
#include "mesh/mesh_layout.hpp"

namespace tplab {

/// Runs the replica's module on the rank's slice of the batch; after its backward, reduces every
/// gradient shard over the DP group. A block run alone has the loss L = sum of y * dy over the
/// global batch, the sum of the replicas' losses, so its gradient is the sum over the replicas
/// (ReplicaReduction::sum).
class DataParallelModule final : public ParallelModule {
 public:
  /// Takes the rank's mesh communicators and the module built on its replica's.
  DataParallelModule(MeshComms comms, std::unique_ptr<ParallelModule> replica, Device& device,
                     GradientBuckets buckets);

  Tensor forward(const Tensor& x) override { return replica_->forward(x); }
  Tensor backward(const Tensor& dy) override;
  TensorMap gradients() const override { return reduced_; }
  void set_dropout_draw(DropoutDraw draw) override { replica_->set_dropout_draw(draw); }

 private:
  MeshComms comms_;  // declared first: outlives the module whose grid was split from it
  std::unique_ptr<ParallelModule> replica_;
  Device& device_;
  GradientBuckets buckets_;
  TensorMap reduced_;
};

}  // namespace tplab
