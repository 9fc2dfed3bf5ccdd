/// @file
/// The words of a Device operation's shape error: what it got, the form each operand must have
/// (as device.hpp states it), and what that form is for the operands given. Shared by the CPU
/// and CUDA devices, so that a learner reads the same sentence on either.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "core/tensor.hpp"

namespace tplab {

/// split_heads: x [b*s, h] -> out [b*n, s, h/n], e.g. "x [16, 32] -> out [8, 64] with batch
/// b = 1, heads n = 2: x must be [b*s, h] (token-major) and out [b*n, s, h/n] (head-major);
/// for this x that is out [2, 16, 16]".
inline std::string split_heads_forms(const Extents& x, std::int64_t batch, std::int64_t heads,
                                     const Extents& out) {
  std::string text = fmt::format(
      "x {} -> out {} with batch b = {}, heads n = {}: x must be [b*s, h] (token-major) and out "
      "[b*n, s, h/n] (head-major)",
      to_string(x), to_string(out), batch, heads);
  if (x.size() != 2 || batch <= 0 || heads <= 0) return text + "; x is not 2-D";
  if (x[0] % batch != 0) {
    return text + fmt::format("; x's {} rows are not b*s tokens for b = {}", x[0], batch);
  }
  if (x[1] % heads != 0) {
    return text + fmt::format("; x's {} columns do not split into n = {} heads", x[1], heads);
  }
  return text + fmt::format("; for this x that is out {}",
                            to_string(Extents{batch * heads, x[0] / batch, x[1] / heads}));
}

/// merge_heads, the inverse: x [b*n, s, h/n] -> out [b*s, h], e.g. "x [16, 32] -> out [8, 64]
/// with batch b = 1, heads n = 2: x must be [b*n, s, h/n] (head-major, b*n = 2 slabs) and out
/// [b*s, h] (token-major); x is not 3-D".
inline std::string merge_heads_forms(const Extents& x, std::int64_t batch, std::int64_t heads,
                                     const Extents& out) {
  std::string text = fmt::format(
      "x {} -> out {} with batch b = {}, heads n = {}: x must be [b*n, s, h/n] (head-major, "
      "b*n = {} slabs) and out [b*s, h] (token-major)",
      to_string(x), to_string(out), batch, heads, batch * heads);
  if (x.size() != 3) return text + "; x is not 3-D";
  if (x[0] != batch * heads) {
    return text + fmt::format("; x has {} slabs, not b*n = {}", x[0], batch * heads);
  }
  return text +
         fmt::format("; for this x that is out {}", to_string(Extents{batch * x[1], heads * x[2]}));
}

/// matmul: op(A) [m, k] x op(B) [k, n] -> C [m, n], e.g. "op(A) [8, 16] x op(B) [32, 64] ->
/// C [8, 64]: the product needs op(A) [m, k], op(B) [k, n] and C [m, n]; op(A)'s k = 16 and
/// op(B)'s k = 32 differ". op() is the operand, transposed where the call asks for it.
inline std::string matmul_forms(std::int64_t m, std::int64_t k, std::int64_t kb, std::int64_t n,
                                std::int64_t c_rows, std::int64_t c_cols) {
  std::string text = fmt::format(
      "op(A) [{}, {}] x op(B) [{}, {}] -> C [{}, {}]: the product needs op(A) [m, k], op(B) "
      "[k, n] and C [m, n] (op: the operand, transposed where the call says so)",
      m, k, kb, n, c_rows, c_cols);
  if (k != kb) return text + fmt::format("; op(A)'s k = {} and op(B)'s k = {} differ", k, kb);
  return text + fmt::format("; C must be [{}, {}]", m, n);
}

/// add_bias: y [rows, n] += bias [n] on every row.
inline std::string add_bias_forms(const Extents& bias, const Extents& y) {
  return fmt::format(
      "bias {} for y {}: y [rows, n] += bias [n] on every row, so bias needs one element per "
      "column of y",
      to_string(bias), to_string(y));
}

/// column_sum: out [n] = the sum over the rows of x [rows, n].
inline std::string column_sum_forms(const Extents& out, const Extents& x) {
  return fmt::format(
      "out {} for x {}: out [n] = the sum over the rows of x [rows, n], so out needs one element "
      "per column of x",
      to_string(out), to_string(x));
}

}  // namespace tplab
