#include "mesh/gradient_reduction.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tplab {
namespace {

/// A flat [n] handle onto the same memory as `t`.
Tensor flat(const Tensor& t) {
  return t.reshaped({t.numel()});
}

void finish(Comm& dp, Device& device, Tensor& reduced, ReplicaReduction reduction) {
  if (reduction == ReplicaReduction::mean) device.scale(reduced, 1.0 / dp.size());
}

}  // namespace

std::int64_t gradient_elements(const TensorMap& gradients) {
  std::int64_t n = 0;
  for (const auto& [name, grad] : gradients) n += grad.numel();
  return n;
}

void reduce_over_replicas(Comm& dp, Device& device, const TensorMap& gradients,
                          GradientBuckets buckets, ReplicaReduction reduction) {
  if (dp.size() == 1 || gradients.empty()) return;
  if (buckets == GradientBuckets::per_tensor) {
    for (const auto& [name, grad] : gradients) {
      Tensor g = grad;  // a handle: the all-reduce writes the rank's gradient itself
      dp.all_reduce(g);
      finish(dp, device, g, reduction);
    }
    return;
  }
  const DType dtype = gradients.begin()->second.dtype();
  // One bucket [N]: each gradient's elements in turn, N their sum.
  Tensor bucket = device.empty({gradient_elements(gradients)}, dtype);
  std::int64_t offset = 0;
  for (const auto& [name, grad] : gradients) {
    check(grad.dtype() == dtype,
          fmt::format("gradient '{}' is not in {}", name, dtype_name(dtype)));
    Tensor slot = bucket.slice_rows(offset, grad.numel());
    device.copy(flat(grad), slot);
    offset += grad.numel();
  }
  dp.all_reduce(bucket);
  finish(dp, device, bucket, reduction);
  offset = 0;
  for (const auto& [name, grad] : gradients) {
    Tensor target = flat(grad);
    device.copy(bucket.slice_rows(offset, grad.numel()), target);
    offset += grad.numel();
  }
}

}  // namespace tplab
