/// @file
/// The unsplit side of the layer tests: whole matrices of small integers, made alike on every
/// rank, the plain single-device products a layer is compared with, and the blocks of them a
/// rank holds. Every product of small integers is exact in f64, so a layer's shard must equal
/// its block of the plain result exactly.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device/device.hpp"

namespace tplab::testing_layers {

/// A row-major matrix of doubles on the host.
struct Matrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> values;

  Matrix(std::int64_t r, std::int64_t c)
      : rows(r), cols(c), values(static_cast<std::size_t>(r * c), 0.0) {}
  double& at(std::int64_t i, std::int64_t j) {
    return values[static_cast<std::size_t>(i * cols + j)];
  }
  double at(std::int64_t i, std::int64_t j) const {
    return values[static_cast<std::size_t>(i * cols + j)];
  }
};

/// Integers in [-2, 2], a different pattern for each `seed`, the same on every rank.
inline Matrix integers(std::int64_t rows, std::int64_t cols, int seed) {
  Matrix m(rows, cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      m.at(i, j) = static_cast<double>((i * 7 + j * 3 + seed * 5 + i * j * seed) % 5 - 2);
    }
  }
  return m;
}

/// op(a) op(b), op transposing when asked: the single-device product, summed in order.
inline Matrix product(const Matrix& a, bool transpose_a, const Matrix& b, bool transpose_b) {
  const std::int64_t rows = transpose_a ? a.cols : a.rows, inner = transpose_a ? a.rows : a.cols;
  const std::int64_t cols = transpose_b ? b.rows : b.cols;
  EXPECT_EQ(inner, transpose_b ? b.cols : b.rows) << "the product's inner extents differ";
  Matrix c(rows, cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      double sum = 0.0;
      for (std::int64_t t = 0; t < inner; ++t) {
        sum += (transpose_a ? a.at(t, i) : a.at(i, t)) * (transpose_b ? b.at(j, t) : b.at(t, j));
      }
      c.at(i, j) = sum;
    }
  }
  return c;
}

/// y + b, b (a 1 x cols matrix) added to every row.
inline Matrix plus_bias(Matrix y, const Matrix& b) {
  for (std::int64_t i = 0; i < y.rows; ++i) {
    for (std::int64_t j = 0; j < y.cols; ++j) y.at(i, j) += b.at(0, j);
  }
  return y;
}

/// The sums of each column, as a 1 x cols matrix (a bias gradient).
inline Matrix column_sums(const Matrix& m) {
  Matrix s(1, m.cols);
  for (std::int64_t i = 0; i < m.rows; ++i) {
    for (std::int64_t j = 0; j < m.cols; ++j) s.at(0, j) += m.at(i, j);
  }
  return s;
}

/// Rows [row, row + rows) and columns [col, col + cols) of m.
inline Matrix block(const Matrix& m, std::int64_t row, std::int64_t rows, std::int64_t col,
                    std::int64_t cols) {
  Matrix b(rows, cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) b.at(i, j) = m.at(row + i, col + j);
  }
  return b;
}

/// The r-th of `parts` equal row blocks of m.
inline Matrix row_block(const Matrix& m, std::int64_t r, std::int64_t parts) {
  return block(m, r * m.rows / parts, m.rows / parts, 0, m.cols);
}

/// The r-th of `parts` equal column blocks of m.
inline Matrix column_block(const Matrix& m, std::int64_t r, std::int64_t parts) {
  return block(m, 0, m.rows, r * m.cols / parts, m.cols / parts);
}

/// m as an f64 tensor on `device`: [rows, cols], or [cols] for a bias when `as_vector`.
inline Tensor upload(Device& device, const Matrix& m, bool as_vector = false) {
  Tensor t =
      as_vector ? device.empty({m.cols}, DType::f64) : device.empty({m.rows, m.cols}, DType::f64);
  device.upload(m.values, t);
  return t;
}

/// A tensor of `device` as a matrix of its rows() x cols() (1 x n for a vector).
inline Matrix download(Device& device, const Tensor& t) {
  Matrix m(t.rank() == 1 ? 1 : t.rows(), t.cols());
  EXPECT_EQ(m.rows * m.cols, t.numel());
  device.download(t, m.values);
  return m;
}

/// Checks that `got` equals `want` element for element; on failure, names the tensor, its
/// first differing element and both values, and how many elements differ.
inline void expect_exact(const Matrix& got, const Matrix& want, const std::string& what) {
  ASSERT_EQ(got.rows, want.rows) << what << ": rows";
  ASSERT_EQ(got.cols, want.cols) << what << ": columns";
  std::int64_t wrong = 0, first = -1;
  for (std::size_t e = 0; e < got.values.size(); ++e) {
    if (got.values[e] == want.values[e]) continue;
    if (first < 0) first = static_cast<std::int64_t>(e);
    ++wrong;
  }
  if (wrong == 0) return;
  const std::int64_t i = first / got.cols, j = first % got.cols;
  ADD_FAILURE() << what << ": " << wrong << " of " << got.values.size()
                << " elements differ; first at (" << i << ", " << j << "): got " << got.at(i, j)
                << ", the unsplit layer gives " << want.at(i, j);
}

}  // namespace tplab::testing_layers
