#include "device/cpu_device.hpp"

#include <fmt/format.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#include "core/error.hpp"
#include "device/shape_forms.hpp"
#ifdef TPLAB_HAVE_ONEDNN
#include "device/onednn_gemm.hpp"
#endif
#ifdef TPLAB_HAVE_OPENBLAS
#include "device/openblas_gemm.hpp"
#endif

namespace tplab {
namespace {

// ---- typed views of tensors -----------------------------------------------------------------

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatrixMap = Eigen::Map<Matrix<T>>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const Matrix<T>>;
template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using RowArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <typename T>
using ConstRowArrayMap =
    Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

template <typename T>
MatrixMap<T> matrix(Tensor& t) {
  return {t.data_as<T>(), t.rows(), t.cols()};
}
template <typename T>
ConstMatrixMap<T> matrix(const Tensor& t) {
  return {t.data_as<T>(), t.rows(), t.cols()};
}
template <typename T>
ArrayMap<T> flat(Tensor& t) {
  return {t.data_as<T>(), t.numel()};
}
template <typename T>
ConstArrayMap<T> flat(const Tensor& t) {
  return {t.data_as<T>(), t.numel()};
}
template <typename T>
RowArrayMap<T> rows(Tensor& t) {
  return {t.data_as<T>(), t.rows(), t.cols()};
}
template <typename T>
ConstRowArrayMap<T> rows(const Tensor& t) {
  return {t.data_as<T>(), t.rows(), t.cols()};
}

/// Calls f.template operator()<T>() with the C++ type of `dtype`.
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
  throw UsageError("the CPU device computes in f64 or f32; bf16 needs the CUDA device");
}

void require(bool ok, std::string_view op, const std::string& detail) {
  if (!ok) throw InternalError(fmt::format("CpuDevice::{}: {}", op, detail));
}

void require_same(const Tensor& a, const Tensor& b, std::string_view op) {
  require(a.extents() == b.extents() && a.dtype() == b.dtype(), op,
          fmt::format("operands differ: {} {} vs {} {}", to_string(a.extents()),
                      dtype_name(a.dtype()), to_string(b.extents()), dtype_name(b.dtype())));
}

/// C = alpha op(A) op(B) + beta C on Eigen matrices (maps or blocks).
template <typename T, typename MA, typename MB, typename MC>
void gemm(const MA& a, Transpose ta, const MB& b, Transpose tb, MC&& c, double alpha, double beta) {
  const T al = static_cast<T>(alpha);
  auto accumulate = [&](const auto& op_a, const auto& op_b) {
    require(op_a.rows() == c.rows() && op_b.cols() == c.cols() && op_a.cols() == op_b.rows(),
            "matmul",
            matmul_forms(op_a.rows(), op_a.cols(), op_b.rows(), op_b.cols(), c.rows(), c.cols()));
    if (beta == 0.0) {
      c.noalias() = al * op_a * op_b;
    } else {
      if (beta != 1.0) c *= static_cast<T>(beta);
      c.noalias() += al * op_a * op_b;
    }
  };
  const bool at = ta == Transpose::yes;
  const bool bt = tb == Transpose::yes;
  if (!at && !bt) accumulate(a, b);
  if (!at && bt) accumulate(a, b.transpose());
  if (at && !bt) accumulate(a.transpose(), b);
  if (at && bt) accumulate(a.transpose(), b.transpose());
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

/// The extents of op(A) [m, k] and op(B) [k, n] -> C [m, n], checked.
struct GemmExtents {
  std::int64_t m, n, k;
};
[[maybe_unused]] GemmExtents gemm_extents(const Tensor& a, bool at, const Tensor& b, bool bt,
                                          const Tensor& c) {
  const std::int64_t m = at ? a.cols() : a.rows(), k = at ? a.rows() : a.cols();
  const std::int64_t kb = bt ? b.cols() : b.rows(), n = bt ? b.rows() : b.cols();
  require(m == c.rows() && n == c.cols() && k == kb, "matmul",
          matmul_forms(m, k, kb, n, c.rows(), c.cols()));
  return {m, n, k};
}

/// C = alpha op(A) op(B) + beta C on 2-D tensors. Where the libraries were found at configure
/// time, f32 goes to oneDNN and f64 to OpenBLAS: on this project's AVX2 machine each runs the
/// block's GEMMs about 1.45x faster than Eigen (README, "Benchmarks"). Otherwise Eigen.
template <typename T>
void matmul_2d(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
               double alpha, double beta) {
  [[maybe_unused]] const bool at = ta == Transpose::yes;
  [[maybe_unused]] const bool bt = tb == Transpose::yes;
#ifdef TPLAB_HAVE_ONEDNN
  if constexpr (std::is_same_v<T, float>) {
    const auto [m, n, k] = gemm_extents(a, at, b, bt, c);
    onednn::sgemm(at, bt, m, n, k, static_cast<float>(alpha), a.data_as<float>(), a.cols(),
                  b.data_as<float>(), b.cols(), static_cast<float>(beta), c.data_as<float>(),
                  c.cols());
    return;
  }
#endif
#ifdef TPLAB_HAVE_OPENBLAS
  if constexpr (std::is_same_v<T, double>) {
    const auto [m, n, k] = gemm_extents(a, at, b, bt, c);
    openblas::dgemm(at, bt, m, n, k, alpha, a.data_as<double>(), a.cols(), b.data_as<double>(),
                    b.cols(), beta, c.data_as<double>(), c.cols());
    return;
  }
#endif
  gemm<T>(matrix<T>(a), ta, matrix<T>(b), tb, matrix<T>(c), alpha, beta);
}

constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluCubic = 0.044715;

}  // namespace

std::string CpuDevice::description() const {
  std::string text = fmt::format("cpu (Eigen {}.{}.{}", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
                                 EIGEN_MINOR_VERSION);
#ifdef TPLAB_HAVE_ONEDNN
  text += ", f32 GEMM by " + onednn::version();
#endif
#ifdef TPLAB_HAVE_OPENBLAS
  text += ", f64 GEMM by " + openblas::version();
#endif
  return text + ", 1 thread)";
}

// ---- memory ---------------------------------------------------------------------------------

Tensor CpuDevice::empty(const Extents& extents, DType dtype) {
  dispatch(dtype, []<typename T>() {});
  // 64-byte alignment lets Eigen use full-width vector loads.
  const std::size_t bytes = std::max<std::size_t>(
      64, (static_cast<std::size_t>(element_count(extents)) * dtype_size(dtype) + 63) / 64 * 64);
  auto* raw = static_cast<std::byte*>(std::aligned_alloc(64, bytes));
  if (raw == nullptr) throw std::bad_alloc();
  return Tensor(extents, dtype, DeviceKind::cpu, std::shared_ptr<std::byte>(raw, std::free));
}

void CpuDevice::fill(Tensor& x, double value) {
  dispatch(x.dtype(), [&]<typename T>() { flat<T>(x).setConstant(static_cast<T>(value)); });
}

void CpuDevice::copy(const Tensor& src, Tensor& dst) {
  require_same(src, dst, "copy");
  std::memcpy(dst.data(), src.data(), src.bytes());
}

void CpuDevice::upload(std::span<const double> host, Tensor& dst) {
  require(static_cast<std::int64_t>(host.size()) == dst.numel(), "upload",
          fmt::format("{} values for a tensor of {}", host.size(), to_string(dst.extents())));
  dispatch(dst.dtype(), [&]<typename T>() {
    flat<T>(dst) = ConstArrayMap<double>(host.data(), dst.numel()).template cast<T>();
  });
}

void CpuDevice::download(const Tensor& src, std::span<double> host) {
  require(static_cast<std::int64_t>(host.size()) == src.numel(), "download",
          fmt::format("{} values for a tensor of {}", host.size(), to_string(src.extents())));
  dispatch(src.dtype(), [&]<typename T>() {
    ArrayMap<double>(host.data(), src.numel()) = flat<T>(src).template cast<double>();
  });
}

// ---- linear algebra -------------------------------------------------------------------------

void CpuDevice::matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                       double alpha, double beta) {
  require(a.rank() == 2 && b.rank() == 2 && c.rank() == 2, "matmul", "operands must be 2-D");
  require(a.dtype() == b.dtype() && b.dtype() == c.dtype(), "matmul", "mixed dtypes");
  dispatch(c.dtype(), [&]<typename T>() { matmul_2d<T>(a, ta, b, tb, c, alpha, beta); });
}

void CpuDevice::batched_matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb,
                               Tensor& c, double alpha, double beta) {
  require(a.rank() == 3 && b.rank() == 3 && c.rank() == 3, "batched_matmul",
          "operands must be 3-D [batch, rows, cols]");
  require(a.dim(0) == b.dim(0) && b.dim(0) == c.dim(0), "batched_matmul",
          fmt::format("batch sizes differ: A {}, B {}, C {}; every operand is [batch, rows, cols] "
                      "with one batch",
                      to_string(a.extents()), to_string(b.extents()), to_string(c.extents())));
  require(a.dtype() == b.dtype() && b.dtype() == c.dtype(), "batched_matmul", "mixed dtypes");
  dispatch(c.dtype(), [&]<typename T>() {
    for (std::int64_t i = 0; i < c.dim(0); ++i) {
      const Tensor ai = a.slice_rows(i, 1).reshaped({a.dim(1), a.dim(2)});
      const Tensor bi = b.slice_rows(i, 1).reshaped({b.dim(1), b.dim(2)});
      Tensor ci = c.slice_rows(i, 1).reshaped({c.dim(1), c.dim(2)});
      matmul_2d<T>(ai, ta, bi, tb, ci, alpha, beta);
    }
  });
}

// ---- element-wise and row-wise --------------------------------------------------------------

void CpuDevice::add_inplace(Tensor& y, const Tensor& x) {
  require_same(y, x, "add_inplace");
  dispatch(y.dtype(), [&]<typename T>() { flat<T>(y) += flat<T>(x); });
}

void CpuDevice::scale(Tensor& x, double alpha) {
  dispatch(x.dtype(), [&]<typename T>() { flat<T>(x) *= static_cast<T>(alpha); });
}

void CpuDevice::add_bias(Tensor& y, const Tensor& bias) {
  require(bias.dtype() == y.dtype(), "add_bias", "mixed dtypes");
  require(bias.numel() == y.cols(), "add_bias", add_bias_forms(bias.extents(), y.extents()));
  dispatch(y.dtype(), [&]<typename T>() { rows<T>(y).rowwise() += flat<T>(bias).transpose(); });
}

void CpuDevice::column_sum(const Tensor& x, Tensor& out, double beta) {
  require(out.dtype() == x.dtype(), "column_sum", "mixed dtypes");
  require(out.numel() == x.cols(), "column_sum", column_sum_forms(out.extents(), x.extents()));
  dispatch(x.dtype(), [&]<typename T>() {
    const auto sums = column_sums<T>(rows<T>(x));
    if (beta == 0.0) {
      flat<T>(out) = sums;
    } else {
      flat<T>(out) = static_cast<T>(beta) * flat<T>(out) + sums;
    }
  });
}

void CpuDevice::gelu_forward(const Tensor& x, Tensor& y) {
  require_same(x, y, "gelu_forward");
  dispatch(x.dtype(), [&]<typename T>() {
    const auto v = flat<T>(x);
    const T c = static_cast<T>(kSqrt2OverPi);
    const T k = static_cast<T>(kGeluCubic);
    flat<T>(y) = T(0.5) * v * (T(1) + (c * (v + k * v.cube())).tanh());
  });
}

void CpuDevice::gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx) {
  require_same(x, dy, "gelu_backward");
  require_same(x, dx, "gelu_backward");
  dispatch(x.dtype(), [&]<typename T>() {
    const auto v = flat<T>(x);
    const T c = static_cast<T>(kSqrt2OverPi);
    const T k = static_cast<T>(kGeluCubic);
    const Eigen::Array<T, Eigen::Dynamic, 1> t = (c * (v + k * v.cube())).tanh();
    // d/dx [x/2 (1 + t(x))] = (1 + t)/2 + x/2 (1 - t^2) c (1 + 3k x^2)
    flat<T>(dx) = flat<T>(dy) * (T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t.square()) * c *
                                                           (T(1) + T(3) * k * v.square()));
  });
}

// ---- attention ------------------------------------------------------------------------------

void CpuDevice::causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) {
  require_same(scores, probs, "causal_softmax_forward");
  require(scores.rank() == 3 && scores.dim(1) == scores.dim(2), "causal_softmax_forward",
          "scores must be [batch, s, s]");
  dispatch(scores.dtype(), [&]<typename T>() {
    const std::int64_t s = scores.dim(1);
    auto in = rows<T>(scores);
    auto out = rows<T>(probs);
    for (std::int64_t r = 0; r < in.rows(); ++r) {
      const std::int64_t visible = r % s + 1;  // query i sees keys 0..i
      auto x = in.row(r).head(visible);
      auto p = out.row(r);
      const T shift = x.maxCoeff();
      p.head(visible) = (static_cast<T>(scale) * (x - shift)).exp();
      p.head(visible) /= p.head(visible).sum();
      p.tail(s - visible).setZero();
    }
  });
}

void CpuDevice::causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                                        Tensor& dscores) {
  require_same(probs, dprobs, "causal_softmax_backward");
  require_same(probs, dscores, "causal_softmax_backward");
  dispatch(probs.dtype(), [&]<typename T>() {
    auto p = rows<T>(probs);
    auto dp = rows<T>(dprobs);
    auto ds = rows<T>(dscores);
    for (std::int64_t r = 0; r < p.rows(); ++r) {
      const T dot = (p.row(r) * dp.row(r)).sum();
      // masked entries have p = 0, so their gradient is 0 as well
      ds.row(r) = static_cast<T>(scale) * p.row(r) * (dp.row(r) - dot);
    }
  });
}

void CpuDevice::split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) {
  const std::int64_t s = x.rows() / batch;
  const std::int64_t d = x.cols() / heads;
  require(out.dtype() == x.dtype(), "split_heads", "mixed dtypes");
  require(x.rank() == 2 && s * batch == x.rows() && d * heads == x.cols() &&
              out.extents() == Extents{batch * heads, s, d},
          "split_heads", split_heads_forms(x.extents(), batch, heads, out.extents()));
  dispatch(x.dtype(), [&]<typename T>() {
    auto in = matrix<T>(x);
    for (std::int64_t bi = 0; bi < batch; ++bi) {
      for (std::int64_t hi = 0; hi < heads; ++hi) {
        Tensor slab = out.slice_rows(bi * heads + hi, 1).reshaped({s, d});
        matrix<T>(slab) = in.block(bi * s, hi * d, s, d);
      }
    }
  });
}

void CpuDevice::merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) {
  require(out.dtype() == x.dtype(), "merge_heads", "mixed dtypes");
  require(x.rank() == 3 && x.dim(0) == batch * heads &&
              out.extents() == Extents{batch * x.dim(1), heads * x.dim(2)},
          "merge_heads", merge_heads_forms(x.extents(), batch, heads, out.extents()));
  dispatch(x.dtype(), [&]<typename T>() {
    const std::int64_t s = x.dim(1);
    const std::int64_t d = x.dim(2);
    auto dst = matrix<T>(out);
    for (std::int64_t bi = 0; bi < batch; ++bi) {
      for (std::int64_t hi = 0; hi < heads; ++hi) {
        const Tensor slab = x.slice_rows(bi * heads + hi, 1).reshaped({s, d});
        dst.block(bi * s, hi * d, s, d) = matrix<T>(slab);
      }
    }
  });
}

std::int64_t CpuDevice::first_nonfinite(const Tensor& x) {
  std::int64_t index = -1;
  dispatch(x.dtype(), [&]<typename T>() {
    const T* v = x.data_as<T>();
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      if (!std::isfinite(v[i])) {
        index = i;
        return;
      }
    }
  });
  return index;
}

// ---- LayerNorm ------------------------------------------------------------------------------

void CpuDevice::row_sum(const Tensor& x, Tensor& out) {
  require(out.numel() == x.rows() && out.dtype() == x.dtype(), "row_sum", "one sum per row");
  dispatch(x.dtype(), [&]<typename T>() { flat<T>(out) = rows<T>(x).rowwise().sum(); });
}

void CpuDevice::row_sum_squared_deviation(const Tensor& x, const Tensor& mean, Tensor& out) {
  require(out.numel() == x.rows() && mean.numel() == x.rows(), "row_sum_squared_deviation",
          "one mean and one sum per row");
  dispatch(x.dtype(), [&]<typename T>() {
    flat<T>(out) = (rows<T>(x).colwise() - flat<T>(mean)).square().rowwise().sum();
  });
}

void CpuDevice::layernorm_apply(const Tensor& x, const Tensor& mean, const Tensor& var, double eps,
                                const Tensor& gamma, const Tensor& beta, Tensor& xhat, Tensor& rstd,
                                Tensor& y) {
  require_same(x, xhat, "layernorm_apply");
  require_same(x, y, "layernorm_apply");
  require(mean.numel() == x.rows() && var.numel() == x.rows() && rstd.numel() == x.rows() &&
              gamma.numel() == x.cols() && beta.numel() == x.cols(),
          "layernorm_apply", "statistics per row and parameters per column");
  dispatch(x.dtype(), [&]<typename T>() {
    flat<T>(rstd) = (flat<T>(var) + static_cast<T>(eps)).rsqrt();
    rows<T>(xhat) = (rows<T>(x).colwise() - flat<T>(mean)).colwise() * flat<T>(rstd);
    rows<T>(y) = (rows<T>(xhat).rowwise() * flat<T>(gamma).transpose()).rowwise() +
                 flat<T>(beta).transpose();
  });
}

void CpuDevice::layernorm_backward_sums(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                        Tensor& sums) {
  require_same(dy, xhat, "layernorm_backward_sums");
  require(sums.extents() == Extents{dy.rows(), 2} && gamma.numel() == dy.cols(),
          "layernorm_backward_sums", "sums must be [rows, 2]");
  dispatch(dy.dtype(), [&]<typename T>() {
    const auto g = rows<T>(dy).rowwise() * flat<T>(gamma).transpose();
    auto out = rows<T>(sums);
    out.col(0) = g.rowwise().sum();
    out.col(1) = (g * rows<T>(xhat)).rowwise().sum();
  });
}

void CpuDevice::layernorm_backward_input(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                         const Tensor& rstd, const Tensor& sums,
                                         std::int64_t features, Tensor& dx) {
  require_same(dy, xhat, "layernorm_backward_input");
  require_same(dy, dx, "layernorm_backward_input");
  dispatch(dy.dtype(), [&]<typename T>() {
    const T inv_n = T(1) / static_cast<T>(features);
    const auto s = rows<T>(sums);
    const Eigen::Array<T, Eigen::Dynamic, 1> mean_g = s.col(0) * inv_n;
    const Eigen::Array<T, Eigen::Dynamic, 1> mean_gx = s.col(1) * inv_n;
    rows<T>(dx) = (((rows<T>(dy).rowwise() * flat<T>(gamma).transpose()).colwise() - mean_g) -
                   rows<T>(xhat).colwise() * mean_gx)
                      .colwise() *
                  flat<T>(rstd);
  });
}

void CpuDevice::layernorm_backward_params(const Tensor& dy, const Tensor& xhat, Tensor& dgamma,
                                          Tensor& dbeta) {
  require_same(dy, xhat, "layernorm_backward_params");
  require(dgamma.numel() == dy.cols() && dbeta.numel() == dy.cols(), "layernorm_backward_params",
          "one gradient per column");
  dispatch(dy.dtype(), [&]<typename T>() {
    flat<T>(dgamma) = column_sums<T>(rows<T>(dy) * rows<T>(xhat));
    flat<T>(dbeta) = column_sums<T>(rows<T>(dy));
  });
}

// ---- a vocabulary split over ranks ----------------------------------------------------------

void CpuDevice::gather_rows(const Tensor& table, std::span<const std::int64_t> rows, Tensor& out) {
  require(out.rows() == static_cast<std::int64_t>(rows.size()) && out.cols() == table.cols() &&
              out.dtype() == table.dtype(),
          "gather_rows",
          fmt::format("{} rows of {} into {}", rows.size(), to_string(table.extents()),
                      to_string(out.extents())));
  dispatch(table.dtype(), [&]<typename T>() {
    const auto in = matrix<T>(table);
    auto dst = matrix<T>(out);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const auto i = static_cast<Eigen::Index>(r);
      if (rows[r] >= 0 && rows[r] < table.rows()) {
        dst.row(i) = in.row(rows[r]);
      } else {
        dst.row(i).setZero();
      }
    }
  });
}

void CpuDevice::scatter_add_rows(const Tensor& src, std::span<const std::int64_t> rows,
                                 Tensor& table) {
  require(src.rows() == static_cast<std::int64_t>(rows.size()) && src.cols() == table.cols() &&
              src.dtype() == table.dtype(),
          "scatter_add_rows",
          fmt::format("{} rows of {} into {}", rows.size(), to_string(src.extents()),
                      to_string(table.extents())));
  dispatch(table.dtype(), [&]<typename T>() {
    const auto in = matrix<T>(src);
    auto dst = matrix<T>(table);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r] >= 0 && rows[r] < table.rows()) {
        dst.row(rows[r]) += in.row(static_cast<Eigen::Index>(r));
      }
    }
  });
}

void CpuDevice::row_max(const Tensor& x, Tensor& out) {
  require(out.numel() == x.rows() && out.dtype() == x.dtype() && x.cols() > 0, "row_max",
          "one maximum per row of a non-empty row");
  dispatch(x.dtype(), [&]<typename T>() { flat<T>(out) = rows<T>(x).rowwise().maxCoeff(); });
}

void CpuDevice::cross_entropy_sums(const Tensor& logits, const Tensor& max,
                                   std::span<const std::int64_t> targets, Tensor& sums) {
  require(max.numel() == logits.rows() &&
              static_cast<std::int64_t>(targets.size()) == logits.rows() &&
              sums.extents() == Extents{logits.rows(), 2} && sums.dtype() == logits.dtype(),
          "cross_entropy_sums", "one maximum and one target per row, sums [rows, 2]");
  dispatch(logits.dtype(), [&]<typename T>() {
    const auto x = rows<T>(logits);
    auto out = rows<T>(sums);
    out.col(0) = (x.colwise() - flat<T>(max)).exp().rowwise().sum();
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const std::int64_t t = targets[static_cast<std::size_t>(r)];
      out(r, 1) = t >= 0 && t < x.cols() ? x(r, t) : T(0);
    }
  });
}

void CpuDevice::cross_entropy_backward(const Tensor& logits, const Tensor& max, const Tensor& sums,
                                       std::span<const std::int64_t> targets, double scale,
                                       Tensor& dlogits) {
  require_same(logits, dlogits, "cross_entropy_backward");
  require(max.numel() == logits.rows() &&
              static_cast<std::int64_t>(targets.size()) == logits.rows() &&
              sums.extents() == Extents{logits.rows(), 2},
          "cross_entropy_backward", "one maximum, one pair of sums and one target per row");
  dispatch(logits.dtype(), [&]<typename T>() {
    const auto x = rows<T>(logits);
    const auto s = rows<T>(sums);
    auto d = rows<T>(dlogits);
    const T k = static_cast<T>(scale);
    // softmax = exp(x - max) / sum over the whole vocabulary of exp(x - max)
    d = ((x.colwise() - flat<T>(max)).exp().colwise() / s.col(0)) * k;
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const std::int64_t t = targets[static_cast<std::size_t>(r)];
      if (t >= 0 && t < x.cols()) d(r, t) -= k;
    }
  });
}

}  // namespace tplab
