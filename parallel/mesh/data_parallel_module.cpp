#include "mesh/data_parallel_module.hpp"

namespace tplab {

DataParallelModule::DataParallelModule(MeshComms comms, std::unique_ptr<ParallelModule> replica,
                                       Device& device, GradientBuckets buckets)
    : comms_(std::move(comms)), replica_(std::move(replica)), device_(device), buckets_(buckets) {}

Tensor DataParallelModule::backward(const Tensor& dy) {
  Tensor dx = replica_->backward(dy);
  reduced_ = replica_->gradients();
  reduce_over_replicas(*comms_.dp, device_, reduced_, buckets_, ReplicaReduction::sum);
  return dx;
}

}  // namespace tplab
