/// @file
/// How far a training's parameters ended from the reference's, against how far training moved
/// them: what bf16's f32 master weights keep, measured.
#pragma once

#include <vector>

#include "comm/comm.hpp"
#include "core/dtype.hpp"
#include "device/device.hpp"
#include "host_array.hpp"
#include "optim/sharded_optimizer.hpp"
#include "scheme/parallel_module.hpp"
#include "scheme/placement.hpp"

namespace tplab::train {

/// ||theta - theta_ref|| / ||theta_ref - theta_0|| over every element of the model once (by the
/// lowest rank that holds its block): `trained`, this rank's shards (bf16's f32 masters, or the
/// parameters themselves), against the reference's `reference` after the same steps from the
/// same `initial` (global arrays, the vocabulary padded as `trained`'s placements). 0 for a
/// training that ended exactly where the reference did; 1 for one whose every update was lost.
/// Collective over `world`.
double parameter_drift(Comm& world, Device& device, const TensorMap& trained,
                       const verify::HostArrays& reference, const verify::HostArrays& initial,
                       const std::vector<TensorPlacement>& placements);

/// The largest parameter_drift a training in `dtype` by `optimizer` may end with, or 0 where
/// none is judged (f64 and f32: their parameters are their own masters). bf16: calibrated in
/// parameter_drift.cpp.
double parameter_drift_bound(DType dtype, OptimizerKind optimizer);

}  // namespace tplab::train
