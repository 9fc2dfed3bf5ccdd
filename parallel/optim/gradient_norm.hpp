/// @file
/// The global gradient norm over a sharded and partly replicated model, and clipping by it.
#pragma once

#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/parallel_module.hpp"
#include "scheme/placement.hpp"

namespace tplab {

/// True when no rank below `rank` holds the block `rank` holds of `placement`: the rank that
/// counts that block once in a sum over the world.
bool counts_block(int rank, const TensorPlacement& placement);

/// The gradients `rank` counts in the global norm: those of the parameters whose block of
/// `placements` no lower rank holds (counts_block). Each element of the model is then counted once
/// however many ranks hold it: a replicated tensor by its first holder alone, a sharded one by the
/// first holder of each shard (summing to the whole tensor), a shard repeated over 2.5D's depth
/// or over the replicas of data parallelism by its first copy. Counting every rank's shards
/// instead counts a tensor replicated on t ranks t times (NVIDIA-NeMo RL PR 3788).
TensorMap gradients_counted_by(int rank, const TensorMap& gradients,
                               const std::vector<TensorPlacement>& placements);

/// sqrt(sum of the squares of every element of `counted` over the world): each rank sums its
/// own in name order, one all-gather brings every rank's sum to every rank, and each adds them
/// in rank order, so every rank holds the same bits. Collective over `world`.
double global_gradient_norm(Comm& world, Device& device, const TensorMap& counted);

/// The factor that clips a gradient of norm `norm` to at most `max_norm`:
/// max_norm / (norm + 1e-6) when that is below 1, else 1 (torch.nn.utils.clip_grad_norm_ and
/// Megatron-LM's clip_grad_norm); NaN for a NaN norm, so that clipping never hides one.
double clip_coefficient(double norm, double max_norm);

/// Multiplies every gradient of `gradients` by `coefficient` (nothing when it is 1).
void scale_gradients(Device& device, const TensorMap& gradients, double coefficient);

}  // namespace tplab
