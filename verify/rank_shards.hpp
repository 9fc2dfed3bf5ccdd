/// @file
/// One rank's share of the global problem: the shards of x, dy and every parameter that the
/// scheme's placements give it. verify, bench and the GPU benchmark cut them here alike.
#pragma once

#include <vector>

#include "device/device.hpp"
#include "host_array.hpp"
#include "scheme/parallel_module.hpp"
#include "scheme/placement.hpp"

namespace tplab::verify {

/// `rank`'s shard of the global array, as `placement` cuts it, on `device` in `dtype`.
Tensor upload_shard(Device& device, const HostArray& global, const TensorPlacement& placement,
                    int rank, DType dtype);

/// What one rank holds of the global problem before its first step.
struct RankShards {
  /// Its shard of every parameter in `inputs` ("wq", "ln1_gamma", ...), for make_module.
  TensorMap parameters;
  /// Its shard of the block's input.
  Tensor x;
  /// Its shard of the output gradient that backward starts from.
  Tensor dy;
};

/// Cuts `rank`'s shards of x, dy and every parameter out of the global `inputs` (as
/// make_inputs draws them), each as its entry of `placements` says, on `device` in `dtype`.
RankShards shard_for_rank(Device& device, const HostArrays& inputs,
                          const std::vector<TensorPlacement>& placements, int rank, DType dtype);

}  // namespace tplab::verify
