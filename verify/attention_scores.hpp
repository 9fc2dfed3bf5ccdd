/// @file
/// Attention scores far past the point where exp overflows: the inputs that tell a softmax
/// shifted by its row's maximum from one that is not.
#pragma once

#include "core/tensor.hpp"
#include "host_array.hpp"
#include "scheme/block_shape.hpp"

namespace tplab::verify {

/// ln of the largest finite value of `dtype`: exp overflows past it (709.8 in f64, 88.7 in f32
/// and in bf16, which has f32's exponent range).
double exp_overflow_point(DType dtype);

/// How far past the overflow point the row shifts reach under raise_attention_scores: the
/// largest |q_i . bk| / sqrt(d) is this many times exp_overflow_point(dtype).
inline constexpr double kScoreReachOverOverflow = 2.0;

/// Scales bk so that the largest |q_i . bk_head| / sqrt(d) over every token i and head equals
/// `reach`. q_i . bk is the same for every key of query i's row, so a softmax that subtracts its
/// row's maximum computes the same probabilities as before (exactly, in exact arithmetic), and
/// d_bk stays 0; exp of the unshifted scores overflows (to Inf, then NaN) wherever a row's
/// shift passes the overflow point, and underflows to 0/0 where it passes below its negative.
///
/// The backward pass loses digits there, whatever the code: dQ = dS K adds (sum_j dS_ij) bk to
/// each row, 0 in exact arithmetic but the round-off of dS times the large bk in floating point
/// (measured at reach 2: d_wq used 367% of f64's tolerance and 398% of f32's, with y at 12% and
/// 10%). So raise_attention_scores also sets dy to 0: the forward is checked against the
/// reference within the usual tolerance, and every gradient must come out exactly 0, as it does
/// from correct code and as a NaN from an overflowed softmax does not.
void raise_attention_scores(const BlockShape& shape, HostArrays& inputs, double reach);

/// The largest |q_i . k_j| / sqrt(d) over every query i, visible key j <= i and head: what the
/// softmax of these inputs exponentiates without a shift.
double largest_attention_score(const BlockShape& shape, const HostArrays& inputs);

}  // namespace tplab::verify
