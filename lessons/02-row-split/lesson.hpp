/// @file
/// Lesson 02: the row split of a matmul. The function the exercise fills in.
#pragma once

#include "comm/comm.hpp"
#include "device/device.hpp"

namespace tplab::lessons::row_split {

/// Y[m, out] = sum over ranks r of X_r[m, in/t] W_r[in/t, out], on every rank, where
/// X_r = X[:, r*in/t : (r+1)*in/t] and W_r = W[r*in/t : (r+1)*in/t, :]. One all-reduce over tp.
Tensor row_parallel_matmul(Device& device, Comm& tp, const Tensor& x_shard, const Tensor& w_shard);

}  // namespace tplab::lessons::row_split
