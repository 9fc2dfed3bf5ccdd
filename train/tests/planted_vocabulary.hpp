/// @file
/// The CPU's vocabulary operations with one mistake planted, for the tests that show a check
/// catches it: each forwards every operation to the CPU's but the one it gets wrong.
#pragma once

#include <memory>

#include "device/cpu_device.hpp"
#include "device/ops/cpu_ops.hpp"

namespace tplab::train {

/// Every vocabulary operation as the CPU does it; a planted mistake overrides one.
class ForwardingVocabularyOps : public VocabularyOps {
 public:
  void gather_rows(const Tensor& table, std::span<const std::int64_t> ids, Tensor& out) override {
    cpu_->gather_rows(table, ids, out);
  }
  void scatter_add_rows(const Tensor& src, std::span<const std::int64_t> ids,
                        Tensor& table) override {
    cpu_->scatter_add_rows(src, ids, table);
  }
  void row_max(const Tensor& x, Tensor& out) override { cpu_->row_max(x, out); }
  void cross_entropy_sums(const Tensor& logits, const Tensor& max,
                          std::span<const std::int64_t> targets, Tensor& sums) override {
    cpu_->cross_entropy_sums(logits, max, targets, sums);
  }
  void cross_entropy_backward(const Tensor& logits, const Tensor& max, const Tensor& sums,
                              std::span<const std::int64_t> targets, double scale,
                              Tensor& dlogits) override {
    cpu_->cross_entropy_backward(logits, max, sums, targets, scale, dlogits);
  }
  void fill_columns_from(Tensor& x, std::int64_t col0, double value) override {
    cpu_->fill_columns_from(x, col0, value);
  }

 protected:
  CpuDevice host_;

 private:
  std::unique_ptr<VocabularyOps> cpu_ = cpu::make_vocabulary_ops();
};

/// The cross-entropy's shift by the row's maximum left out: every row's "maximum" is 0, so exp
/// meets the logits themselves, forward and backward. Exact in exact arithmetic; it overflows
/// once the logits pass exp's overflow point.
class UnshiftedCrossEntropy final : public ForwardingVocabularyOps {
 public:
  void row_max(const Tensor&, Tensor& out) override { host_.fill(out, 0.0); }
};

/// The padded ids left unmasked: their logits (0, from the zero columns of the head) take part
/// in the softmax as if they were tokens. Only a vocabulary its parts do not divide has any.
class UnmaskedPadding final : public ForwardingVocabularyOps {
 public:
  void fill_columns_from(Tensor&, std::int64_t, double) override {}
};

/// The CPU's families with `Ops` for the vocabulary's operations.
template <class Ops>
DeviceFamilies families_with() {
  DeviceFamilies f = cpu::make_families();
  f.vocabulary = std::make_unique<Ops>();
  return f;
}

}  // namespace tplab::train
