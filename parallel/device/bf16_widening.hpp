/// @file
/// bf16 on the CPU: the operands of one operation widened to f32 and its outputs rounded back.
#pragma once

#include <deque>
#include <optional>
#include <vector>

#include "core/tensor.hpp"

namespace tplab::cpu {

/// The bf16 operands of one CPU operation as f32 tensors, so that the f32 kernel computes it:
/// in() and out() hand the kernel f32 copies of bf16 tensors (and any other tensor as it is),
/// and the destructor rounds every output copy back into its bf16 tensor, once, to the nearest
/// bfloat16 (ties to even). That is what the CUDA kernels do with bf16: load, compute in f32,
/// store once rounded; their results differ from these only in the order of f32 sums.
///
/// The copies are host memory of their own, outside the device's allocation account: a GPU's
/// bf16 kernel needs no such copy, so the account stays what the layers asked for. One tensor
/// passed as both an input and an output (x *= a) gets one copy. Mixing bf16 with another
/// dtype in one operation is refused, as the GPU refuses it.
class WidenedBf16 {
 public:
  /// `operation` names the operation in errors.
  explicit WidenedBf16(const char* operation) : operation_(operation) {}
  WidenedBf16(const WidenedBf16&) = delete;
  WidenedBf16& operator=(const WidenedBf16&) = delete;
  /// Rounds every output copy back into its tensor.
  ~WidenedBf16();

  /// An input: an f32 copy of a bf16 tensor, the tensor itself otherwise.
  const Tensor& in(const Tensor& t);
  /// An output (which the kernel may read too: beta C, y += x): an f32 copy holding t's values
  /// when t is bf16, rounded back into t at the end; t itself otherwise.
  Tensor& out(Tensor& t);

 private:
  struct Copy {
    Tensor original;  ///< a handle onto the operand's own memory
    Tensor wide;      ///< its f32 copy
    bool written;     ///< an output: rounded back into `original` at the end
  };
  /// The copy of t, made on first use.
  Copy& copy_of(const Tensor& t);
  /// Throws unless every operand seen so far is bf16, or none is.
  void note_dtype(const Tensor& t);

  const char* operation_;
  std::optional<bool> bf16_;
  std::deque<Copy> copies_;  // stable addresses: the kernel holds references to them
};

/// A host f32 tensor of `extents` outside any device's account.
Tensor host_f32(const Extents& extents);

}  // namespace tplab::cpu
