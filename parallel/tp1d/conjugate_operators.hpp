/// @file
/// The collectives that stand around a 1D sublayer's linears: Megatron's conjugate operators
/// (Shoeybi et al. 2019, section 3) and their sequence-parallel forms (Korthikanti et al.
/// 2022), under Megatron-LM's names (megatron/core/tensor_parallel/mappings.py):
///
///   CopyToTensorParallelRegion             the paper's f: identity forward, all-reduce backward
///   ReduceFromTensorParallelRegion         the paper's g: all-reduce forward, identity backward
///   GatherFromSequenceParallelRegion       f's sequence-parallel form: all-gather forward,
///                                          reduce-scatter backward
///   ReduceScatterToSequenceParallelRegion  g's sequence-parallel form: reduce-scatter forward,
///                                          all-gather backward
///
/// A sublayer picks f or its sequence-parallel form once, when it is built, as a
/// ColumnInputRegion (make_column_input_region); g or its form as a RowOutputRegion
/// (make_row_output_region).
#pragma once

#include <memory>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/execution_policy.hpp"
#include "tp1d/mode_1d.hpp"

namespace tplab::tp1d {

// ---- before the column-parallel linears: f or its sequence-parallel form

/// f or its sequence-parallel form: what stands between a sublayer's input and its
/// column-parallel linears (Q, K, V; or fc1), and keeps that input for their weight gradients.
///
///   f:   forward  X[m, h] (replicated) passes unchanged and is kept
///        backward the partial dX [m, h] of the linears is all-reduced
///   SP:  forward  X_r[m/t, h] (this rank's tokens) is kept; all_gather -> X[m, h]
///        backward X is all-gathered again from the kept shard for the weight gradients,
///                 and the partial dX [m, h] is reduce-scattered to dX_r[m/t, h]
///
/// Keeping the shard and gathering it again costs one all-gather of [m, h] per sublayer in
/// backward and saves (t-1)/t of the [m, h] input (Megatron does the same). Backward's
/// collectives follow the ExecutionPolicy: with overlap they are started and return at once.
class ColumnInputRegion {
 public:
  virtual ~ColumnInputRegion() = default;
  /// This rank's input -> the whole input X [m, h] the column-parallel linears read.
  virtual Tensor forward(const Tensor& x) = 0;
  /// X [m, h] again, for the linears' weight gradients: the kept input, or the kept shard
  /// all-gathered (SP).
  virtual PendingTensor input_for_backward() = 0;
  /// The linears' partial dX [m, h] -> dX summed over the group, in forward's input layout.
  virtual PendingTensor backward(Tensor partial) = 0;
  /// Lets go of the kept input.
  virtual void forget() = 0;
};

/// f (Megatron's copy_to_tensor_model_parallel_region). It stands before column-parallel
/// linears, whose input is replicated: each rank's dX is only its own columns' share, so the
/// shares are summed.
class CopyToTensorParallelRegion final : public ColumnInputRegion {
 public:
  /// f over the group `tp`; its all-reduce is started or blocking as `policy` says.
  explicit CopyToTensorParallelRegion(Comm& tp, ExecutionPolicy policy = {});

  /// X [m, h] passes unchanged, and is kept.
  Tensor forward(const Tensor& x) override;
  /// The kept X [m, h], already complete.
  PendingTensor input_for_backward() override;
  /// The partial dX [m, h] summed over the group (started when the policy overlaps).
  PendingTensor backward(Tensor partial) override;
  void forget() override { kept_ = Tensor(); }

 private:
  Comm& tp_;
  ExecutionPolicy policy_;
  Tensor kept_;  // X [m, h]
};

/// f's sequence-parallel form (Megatron's gather_from_sequence_parallel_region).
class GatherFromSequenceParallelRegion final : public ColumnInputRegion {
 public:
  /// The sequence-parallel f over the group `tp`; backward's collectives follow `policy`.
  GatherFromSequenceParallelRegion(Device& device, Comm& tp, ExecutionPolicy policy = {});

  /// X_r [m/t, h] is kept and all-gathered to X [m, h], the ranks' tokens in rank order.
  Tensor forward(const Tensor& x) override;
  /// X [m, h] all-gathered again from the kept shard.
  PendingTensor input_for_backward() override;
  /// The partial dX [m, h] reduce-scattered to this rank's tokens, dX_r [m/t, h].
  PendingTensor backward(Tensor partial) override;
  void forget() override { kept_ = Tensor(); }

 private:
  Device& device_;
  Comm& tp_;
  ExecutionPolicy policy_;
  Tensor kept_;  // X_r [m/t, h]
};

/// f, or its sequence-parallel form when `mode` says so, over the group `tp`.
std::unique_ptr<ColumnInputRegion> make_column_input_region(Device& device, Comm& tp, Mode1D mode,
                                                            ExecutionPolicy policy);

// ---- after the row-parallel linear: g or its sequence-parallel form

/// g or its sequence-parallel form: what stands after a row-parallel linear's product.
///
///   g:   forward  the partial Y [m, out] is all-reduced; backward dY [m, out] passes unchanged
///   SP:  forward  the partial Y [m, out] is reduce-scattered to Y_r [m/t, out];
///        backward dY_r [m/t, out] is all-gathered to dY [m, out], and the bias gradient, a
///                 sum over this rank's tokens only, is all-reduced
class RowOutputRegion {
 public:
  virtual ~RowOutputRegion() = default;
  /// The partial output [m, out] -> the summed output in the block's layout.
  virtual Tensor forward(Tensor partial) = 0;
  /// The output gradient in the block's layout -> dY [m, out], whole.
  virtual Tensor backward(const Tensor& dy) = 0;
  /// Completes the bias gradient (the column sums of dY in the block's layout): nothing to do
  /// after g; after SP an all-reduce, started when the policy overlaps.
  virtual CommRequest sum_bias_grad(Tensor& bias_grad) = 0;
};

/// g (Megatron's reduce_from_tensor_model_parallel_region). It stands after a row-parallel
/// linear, whose ranks each hold a partial sum of the output; the output gradient is already
/// replicated.
class ReduceFromTensorParallelRegion final : public RowOutputRegion {
 public:
  /// g over the group `tp`.
  explicit ReduceFromTensorParallelRegion(Comm& tp) : tp_(tp) {}

  /// The partial Y [m, out] summed over the group.
  Tensor forward(Tensor partial) override;
  /// dY [m, out] passes unchanged.
  Tensor backward(const Tensor& dy) override { return dy; }
  /// Nothing to sum: dY is whole on every rank.
  CommRequest sum_bias_grad(Tensor&) override { return {}; }

 private:
  Comm& tp_;
};

/// g's sequence-parallel form (Megatron's reduce_scatter_to_sequence_parallel_region).
class ReduceScatterToSequenceParallelRegion final : public RowOutputRegion {
 public:
  /// The sequence-parallel g over the group `tp`; the bias gradient's sum follows `policy`.
  ReduceScatterToSequenceParallelRegion(Device& device, Comm& tp, ExecutionPolicy policy = {});

  /// The partial Y [m, out] reduce-scattered to this rank's tokens, Y_r [m/t, out].
  Tensor forward(Tensor partial) override;
  /// dY_r [m/t, out] all-gathered to dY [m, out].
  Tensor backward(const Tensor& dy) override;
  /// The bias gradient summed over the group: each rank summed its own tokens only.
  CommRequest sum_bias_grad(Tensor& bias_grad) override;

 private:
  Device& device_;
  Comm& tp_;
  ExecutionPolicy policy_;
};

/// g, or its sequence-parallel form when `mode` says so, over the group `tp`.
std::unique_ptr<RowOutputRegion> make_row_output_region(Device& device, Comm& tp, Mode1D mode,
                                                        ExecutionPolicy policy);

}  // namespace tplab::tp1d
