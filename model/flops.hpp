/// @file
/// The arithmetic of one block: how many floating-point operations a step takes.
#pragma once

#include "scheme/block_shape.hpp"
#include "scheme/recompute.hpp"

namespace tplab::model {

/// FLOPs of one block's forward and backward: 3 x (24 b s h^2 + 4 b s^2 h), counting a
/// multiply-add as 2 and the causal attention as if it were full (as cuBLAS computes it).
/// Forward: the six linears 2 m (4 h^2 + 8 h^2) = 24 m h^2, q k^T and probs v 4 b s^2 h;
/// backward twice forward (the input and the weight gradients). LayerNorm, softmax, GELU and
/// the residuals are O(m h) and left out.
double block_step_flops(const BlockShape& shape);

/// FLOPs that `mode` computes a second time in backward:
///   none       0
///   selective  2 b s^2 h: q k^T again (softmax and dropout are O(b n s^2), left out as above)
///   full       24 b s h^2 + 4 b s^2 h: the whole forward again (a third more than none)
double recompute_flops(const BlockShape& shape, Recompute mode);

}  // namespace tplab::model
