/// @file
/// The two-pass column sums of CudaDevice (column_sums.cu). CUDA code only.
#pragma once

#include "core/tensor.hpp"
#include "device/cuda/cuda_state.cuh"

namespace tplab::cuda {

/// out[c] = sum_r x[r, c] (times y[r, c] when y is given) + beta * out[c], enqueued on the
/// state's stream: partial sums over chunks of rows, then their sum; launch_plan.hpp's
/// column_sum_plan sizes the chunks.
void column_sums(const CudaDevice::State& state, const Tensor& x, const Tensor* y, Tensor& out,
                 double beta);

}  // namespace tplab::cuda
