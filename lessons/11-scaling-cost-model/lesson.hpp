/// @file
/// Lesson 11: scaling, communication share and the cost model. The functions the exercise
/// fills in.
#pragma once

#include "hardware.hpp"
#include "scheme/block_shape.hpp"

namespace tplab::lessons::cost_model {

/// Elements one rank sends over its links (N x bus factor of each ring collective, summed) in
/// one block's forward and backward under 1D tensor parallelism on t ranks.
double bus_elements_1d(const BlockShape& shape, int t);

/// One block's forward and backward on one device, in seconds.
struct StepTime {
  double compute_s = 0;  ///< this device's share of the FLOPs at the profile's matmul rate
  double comm_s = 0;     ///< the alpha-beta time of its collectives, none overlapped
};

/// The step of 1D on t devices of `profile`: the block's FLOPs (model::block_step_flops)
/// split t ways, and the alpha-beta time of its all-reduces on the intra-node link, or the
/// inter-node one when the t devices fill more than one node.
StepTime step_time_1d(const BlockShape& shape, int t, const model::HardwareProfile& profile);

/// The smallest t of 1, 2, 4, ... up to max_t at which 1D's communication takes longer than
/// its compute on `profile`; 0 when there is none.
int first_comm_bound_t(const BlockShape& shape, const model::HardwareProfile& profile, int max_t);

}  // namespace tplab::lessons::cost_model
