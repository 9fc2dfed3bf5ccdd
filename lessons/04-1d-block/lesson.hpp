/// @file
/// Lesson 04: 1D attention (whole heads per rank) and the full 1D pre-LN block. The factories
/// the exercise fills in.
#pragma once

#include <memory>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "layers/sublayer.hpp"
#include "scheme/block_shape.hpp"
#include "scheme/parallel_module.hpp"

namespace tplab::lessons::block_1d {

/// The attention sublayer of this rank: A[m, h] (replicated) -> f -> Q, K, V column-parallel
/// [m, h/t] (heads r*n/t .. (r+1)*n/t - 1 whole) -> causal attention, local -> output
/// projection row-parallel with g -> [m, h] replicated. `p` holds this rank's shards of wq, bq,
/// wk, bk, wv, bv, wo and bo.
std::unique_ptr<Sublayer> make_attention(Device& device, Comm& tp, const BlockShape& shape,
                                         const TensorMap& p);

/// The whole block of this rank: x1 = x + Attention(LN1(x)), y = x1 + MLP(LN2(x1)), with the
/// attention of make_attention and the library's 1D MLP. `p` holds every parameter's shard.
std::unique_ptr<ParallelModule> make_block(Device& device, Comm& tp, const BlockShape& shape,
                                           const TensorMap& p);

}  // namespace tplab::lessons::block_1d
