/// @file
/// What every CPU operation shares: Eigen views of a tensor's memory (no copies), the call of
/// a template with the C++ type of a dtype, and the checks that name the failing operation.
/// Used by cpu_device.cpp and the families' device/ops/*_cpu.cpp.
#pragma once

#include <fmt/format.h>

#include <Eigen/Core>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/tensor.hpp"

namespace tplab::cpu {

// ---- typed views of tensors -----------------------------------------------------------------

/// A row-major Eigen matrix of T that owns its memory.
template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// A row-major matrix view of memory a Tensor owns.
template <typename T>
using MatrixMap = Eigen::Map<Matrix<T>>;
/// A read-only row-major matrix view of memory a Tensor owns.
template <typename T>
using ConstMatrixMap = Eigen::Map<const Matrix<T>>;
/// A flat array view of a Tensor's elements.
template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
/// A read-only flat array view of a Tensor's elements.
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
/// A row-major 2-D array view (element-wise arithmetic) of a Tensor's memory.
template <typename T>
using RowArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
/// A read-only row-major 2-D array view of a Tensor's memory.
template <typename T>
using ConstRowArrayMap =
    Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

/// A 2-D tensor as an Eigen matrix.
template <typename T>
MatrixMap<T> matrix(Tensor& t) {
  return {t.data_as<T>(), t.rows(), t.cols()};
}
/// A 2-D tensor as a read-only Eigen matrix.
template <typename T>
ConstMatrixMap<T> matrix(const Tensor& t) {
  return {t.data_as<T>(), t.rows(), t.cols()};
}
/// Every element of a tensor as one Eigen array.
template <typename T>
ArrayMap<T> flat(Tensor& t) {
  return {t.data_as<T>(), t.numel()};
}
/// Every element of a tensor as one read-only Eigen array.
template <typename T>
ConstArrayMap<T> flat(const Tensor& t) {
  return {t.data_as<T>(), t.numel()};
}
/// A tensor's rows as a row-major Eigen array (element-wise arithmetic, row and column sums).
template <typename T>
RowArrayMap<T> rows(Tensor& t) {
  return {t.data_as<T>(), t.rows(), t.cols()};
}
/// A tensor's rows as a read-only row-major Eigen array.
template <typename T>
ConstRowArrayMap<T> rows(const Tensor& t) {
  return {t.data_as<T>(), t.rows(), t.cols()};
}

/// Calls `f.template operator()<T>()` with the C++ type T of `dtype`.
template <typename F>
void dispatch(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f64:
      f.template operator()<double>();
      return;
    case DType::f32:
      f.template operator()<float>();
      return;
    case DType::bf16:
      break;
  }
  throw InternalError("a CPU kernel of f64 and f32 was handed bf16 (device/ops/cpu_ops.hpp)");
}

/// Throws, naming the operation, when `ok` is false.
inline void require(bool ok, std::string_view op, const std::string& detail) {
  if (!ok) throw InternalError(fmt::format("CpuDevice::{}: {}", op, detail));
}

/// Throws, naming the operation, unless a and b have the same extents and dtype.
inline void require_same(const Tensor& a, const Tensor& b, std::string_view op) {
  require(a.extents() == b.extents() && a.dtype() == b.dtype(), op,
          fmt::format("operands differ: {} {} vs {} {}", to_string(a.extents()),
                      dtype_name(a.dtype()), to_string(b.extents()), dtype_name(b.dtype())));
}

/// The sum of each column of a row-major array (or expression), accumulated row by row. Each
/// row is contiguous, so this streams the memory once with full-width vector adds; Eigen's
/// colwise().sum() on row-major storage walks it column by column instead, about 10x slower at
/// [1024, 1024] (bias and LayerNorm gradients).
template <typename T, typename RowMajorArray>
Eigen::Array<T, Eigen::Dynamic, 1> column_sums(const RowMajorArray& x) {
  Eigen::Array<T, 1, Eigen::Dynamic> sum = Eigen::Array<T, 1, Eigen::Dynamic>::Zero(x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) sum += x.row(r);
  return sum.transpose();
}

}  // namespace tplab::cpu
