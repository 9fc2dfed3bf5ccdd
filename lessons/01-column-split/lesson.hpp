/// @file
/// Lesson 01: the column split of a matmul. The functions the exercise fills in.
#pragma once

#include "comm/comm.hpp"
#include "device/device.hpp"

namespace tplab::lessons::column_split {

/// Y_r[m, out/t] = X[m, in] W_r[in, out/t], where W_r = W[:, r*out/t : (r+1)*out/t]: this
/// rank's columns of Y. X is replicated; no communication.
Tensor column_parallel_matmul(Device& device, const Tensor& x, const Tensor& w_shard);

/// Y[m, out] on every rank from every rank's Y_r[m, out/t]: one all-gather over `tp`, then the
/// column blocks put side by side (Comm::all_gather stacks along the first extent).
Tensor gather_columns(Device& device, Comm& tp, const Tensor& y_shard);

}  // namespace tplab::lessons::column_split
