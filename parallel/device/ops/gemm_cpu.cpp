/// @file
/// GemmOps on the CPU. Where the libraries were found at configure time, f32 goes to oneDNN's
/// sgemm and f64 to OpenBLAS's dgemm: on this project's AVX2 machine each runs the block's
/// GEMMs about 1.45x faster than Eigen (README, "Benchmarks"). Otherwise Eigen.
#include <type_traits>

#include "device/eigen_views.hpp"
#include "device/ops/cpu_ops.hpp"
#include "device/shape_forms.hpp"
#ifdef TPLAB_HAVE_ONEDNN
#include "device/onednn_gemm.hpp"
#endif
#ifdef TPLAB_HAVE_OPENBLAS
#include "device/openblas_gemm.hpp"
#endif

namespace tplab::cpu {
namespace {

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

/// C = alpha op(A) op(B) + beta C on 2-D tensors, by oneDNN, OpenBLAS or Eigen (file comment).
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

class CpuGemm final : public GemmOps {
 public:
  void matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c, double alpha,
              double beta) override {
    require(a.rank() == 2 && b.rank() == 2 && c.rank() == 2, "matmul", "operands must be 2-D");
    require(a.dtype() == b.dtype() && b.dtype() == c.dtype(), "matmul", "mixed dtypes");
    // [m, k] x [k, n] -> [m, n] after the transposes
    dispatch(c.dtype(), [&]<typename T>() { matmul_2d<T>(a, ta, b, tb, c, alpha, beta); });
  }

  void batched_matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                      double alpha, double beta) override {
    require(a.rank() == 3 && b.rank() == 3 && c.rank() == 3, "batched_matmul",
            "operands must be 3-D [batch, rows, cols]");
    require(a.dim(0) == b.dim(0) && b.dim(0) == c.dim(0), "batched_matmul",
            fmt::format("batch sizes differ: A {}, B {}, C {}; every operand is [batch, rows, "
                        "cols] with one batch",
                        to_string(a.extents()), to_string(b.extents()), to_string(c.extents())));
    require(a.dtype() == b.dtype() && b.dtype() == c.dtype(), "batched_matmul", "mixed dtypes");
    // [batch, m, k] x [batch, k, n] -> [batch, m, n]: one product per batch index
    dispatch(c.dtype(), [&]<typename T>() {
      for (std::int64_t i = 0; i < c.dim(0); ++i) {
        const Tensor ai = a.slice_rows(i, 1).reshaped({a.dim(1), a.dim(2)});
        const Tensor bi = b.slice_rows(i, 1).reshaped({b.dim(1), b.dim(2)});
        Tensor ci = c.slice_rows(i, 1).reshaped({c.dim(1), c.dim(2)});
        matmul_2d<T>(ai, ta, bi, tb, ci, alpha, beta);
      }
    });
  }
};

}  // namespace

std::unique_ptr<GemmOps> make_gemm_ops() {
  return std::make_unique<CpuGemm>();
}

}  // namespace tplab::cpu
