#include "device/cuda/cuda_checks.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "device/shape_forms.hpp"

namespace tplab::cuda {
namespace {

std::string describe(const Tensor& t) {
  return fmt::format("{} {} on {}", to_string(t.extents()), dtype_name(t.dtype()),
                     device_name(t.device()));
}

[[noreturn]] void fail(std::string_view op, const std::string& detail) {
  throw InternalError(fmt::format("CudaDevice::{}: {}", op, detail));
}

}  // namespace

void require_on_device(std::string_view op, const Tensor& t) {
  if (!t.defined() && t.numel() > 0) fail(op, "a tensor without memory");
  if (t.device() != DeviceKind::cuda) {
    fail(op, fmt::format("operand {} is not on the CUDA device", describe(t)));
  }
}

void require_same(std::string_view op, const Tensor& a, const Tensor& b) {
  require_on_device(op, a);
  require_on_device(op, b);
  if (a.extents() != b.extents() || a.dtype() != b.dtype()) {
    fail(op, fmt::format("operands differ: {} vs {}", describe(a), describe(b)));
  }
}

void require_one_dtype(std::string_view op, const Tensor& a, const Tensor& b, const Tensor& c) {
  require_on_device(op, a);
  require_on_device(op, b);
  require_on_device(op, c);
  if (a.dtype() != b.dtype() || b.dtype() != c.dtype()) {
    fail(op, fmt::format("mixed dtypes: {}, {}, {}", describe(a), describe(b), describe(c)));
  }
}

void require_per_row(std::string_view op, const Tensor& x, const Tensor& per_row) {
  require_on_device(op, x);
  require_on_device(op, per_row);
  if (per_row.numel() != x.rows() || per_row.dtype() != x.dtype()) {
    fail(op, fmt::format("{} for the {} rows of {}", describe(per_row), x.rows(), describe(x)));
  }
}

void require_index_per_row(std::string_view op, const Tensor& x, std::size_t indices) {
  require_on_device(op, x);
  if (static_cast<std::int64_t>(indices) != x.rows()) {
    fail(op, fmt::format("{} indices for the {} rows of {}", indices, x.rows(), describe(x)));
  }
}

void require_row_pairs(std::string_view op, const Tensor& x, const Tensor& sums) {
  require_on_device(op, sums);
  if (sums.extents() != Extents{x.rows(), 2} || sums.dtype() != x.dtype()) {
    fail(op,
         fmt::format("{} must be [{}, 2] of {}", describe(sums), x.rows(), dtype_name(x.dtype())));
  }
}

void require_per_column(std::string_view op, const Tensor& x, const Tensor& per_column) {
  require_on_device(op, x);
  require_on_device(op, per_column);
  if (per_column.numel() != x.cols() || per_column.dtype() != x.dtype()) {
    fail(op,
         fmt::format("{} for the {} columns of {}", describe(per_column), x.cols(), describe(x)));
  }
}

void require_host_size(std::string_view op, std::size_t host_values, const Tensor& t) {
  require_on_device(op, t);
  if (static_cast<std::int64_t>(host_values) != t.numel()) {
    fail(op, fmt::format("{} host values for {}", host_values, describe(t)));
  }
}

void require_causal_scores(std::string_view op, const Tensor& scores, const Tensor& probs) {
  require_same(op, scores, probs);
  if (scores.rank() != 3 || scores.dim(1) != scores.dim(2)) {
    fail(op, fmt::format("scores must be [batch, s, s]; got {}", describe(scores)));
  }
}

HeadLayout require_split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads,
                               const Tensor& out) {
  require_on_device("split_heads", x);
  require_on_device("split_heads", out);
  const bool counts_ok = batch > 0 && heads > 0 && x.rank() == 2;
  const HeadLayout l{batch, heads, counts_ok ? x.rows() / batch : 0,
                     counts_ok ? x.cols() / heads : 0};
  if (!counts_ok || l.sequence * batch != x.rows() || l.head_dim * heads != x.cols() ||
      out.extents() != Extents{batch * heads, l.sequence, l.head_dim} || out.dtype() != x.dtype()) {
    fail("split_heads", out.dtype() != x.dtype()
                            ? fmt::format("mixed dtypes: {} -> {}", describe(x), describe(out))
                            : split_heads_forms(x.extents(), batch, heads, out.extents()));
  }
  return l;
}

HeadLayout require_merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads,
                               const Tensor& out) {
  require_on_device("merge_heads", x);
  require_on_device("merge_heads", out);
  if (batch <= 0 || heads <= 0 || x.rank() != 3 || x.dim(0) != batch * heads ||
      out.extents() != Extents{batch * x.dim(1), heads * x.dim(2)} || out.dtype() != x.dtype()) {
    fail("merge_heads", out.dtype() != x.dtype()
                            ? fmt::format("mixed dtypes: {} -> {}", describe(x), describe(out))
                            : merge_heads_forms(x.extents(), batch, heads, out.extents()));
  }
  return {batch, heads, x.dim(1), x.dim(2)};
}

}  // namespace tplab::cuda
