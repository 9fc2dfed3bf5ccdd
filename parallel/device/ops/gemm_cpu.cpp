/// @file
/// GemmOps on the CPU. Where the libraries were found at configure time, f32 goes to oneDNN's
/// sgemm and f64 to OpenBLAS's dgemm: on this project's AVX2 machine each runs the block's
/// GEMMs about 1.45x faster than Eigen (README, "Benchmarks"). Otherwise Eigen. bf16 goes to
/// oneDNN's bf16 matmul on CPUs with AVX512-BF16 or AMX, and is otherwise emulated: its
/// operands widened to f32 (exactly) for the f32 GEMM. Either way the products are summed in
/// f32 and C = alpha op(A) op(B) + beta C is rounded once to bf16, as cuBLAS computes a bf16
/// GEMM with CUBLAS_COMPUTE_32F; the three differ only in the order of the f32 sums.
#include <cstdlib>
#include <optional>
#include <string_view>
#include <type_traits>

#include "device/bf16_widening.hpp"
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

/// C = alpha op(A) op(B) + beta C on 2-D bf16 tensors by `path` (file comment).
void matmul_bf16(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                 double alpha, double beta, Bf16GemmPath path) {
  WidenedBf16 wide("matmul");
  Tensor& wide_c = wide.out(c);  // C in f32, rounded back into c at the end
  if (path == Bf16GemmPath::emulated) {
    matmul_2d<float>(wide.in(a), ta, wide.in(b), tb, wide_c, alpha, beta);
    return;
  }
#ifdef TPLAB_HAVE_ONEDNN
  const bool at = ta == Transpose::yes, bt = tb == Transpose::yes;
  const auto [m, n, k] = gemm_extents(a, at, b, bt, c);
  // [m, k] x [k, n] -> [m, n] summed in f32, then beta C added in f32
  Tensor product = beta == 0.0 ? wide_c : host_f32(c.extents());
  onednn::bf16_gemm(at, bt, m, n, k, static_cast<float>(alpha), a.data_as<std::uint16_t>(),
                    a.cols(), b.data_as<std::uint16_t>(), b.cols(), product.data_as<float>(), n);
  if (beta != 0.0)
    flat<float>(wide_c) = static_cast<float>(beta) * flat<float>(wide_c) + flat<float>(product);
#else
  throw InternalError("CpuDevice::matmul: oneDNN's bf16 path asked for in a build without oneDNN");
#endif
}

class CpuGemm final : public GemmOps {
 public:
  /// bf16 products by `bf16`, or by chosen_bf16_gemm_path() at the first one when it is empty
  /// (so that a run without bf16 never reads TPLAB_BF16_GEMM).
  explicit CpuGemm(std::optional<Bf16GemmPath> bf16) : bf16_(bf16) {}

  void matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c, double alpha,
              double beta) override {
    require(a.rank() == 2 && b.rank() == 2 && c.rank() == 2, "matmul", "operands must be 2-D");
    require(a.dtype() == b.dtype() && b.dtype() == c.dtype(), "matmul", "mixed dtypes");
    // [m, k] x [k, n] -> [m, n] after the transposes
    multiply(a, ta, b, tb, c, alpha, beta);
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
    for (std::int64_t i = 0; i < c.dim(0); ++i) {
      const Tensor ai = a.slice_rows(i, 1).reshaped({a.dim(1), a.dim(2)});
      const Tensor bi = b.slice_rows(i, 1).reshaped({b.dim(1), b.dim(2)});
      Tensor ci = c.slice_rows(i, 1).reshaped({c.dim(1), c.dim(2)});
      multiply(ai, ta, bi, tb, ci, alpha, beta);
    }
  }

 private:
  /// One 2-D product in the operands' dtype.
  void multiply(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                double alpha, double beta) {
    if (c.dtype() == DType::bf16) {
      if (!bf16_) bf16_ = chosen_bf16_gemm_path();
      matmul_bf16(a, ta, b, tb, c, alpha, beta, *bf16_);
      return;
    }
    dispatch(c.dtype(), [&]<typename T>() { matmul_2d<T>(a, ta, b, tb, c, alpha, beta); });
  }

  std::optional<Bf16GemmPath> bf16_;
};

}  // namespace

bool onednn_bf16_available() {
#ifdef TPLAB_HAVE_ONEDNN
  return !onednn::bf16_isa().empty();
#else
  return false;
#endif
}

Bf16GemmPath chosen_bf16_gemm_path() {
  const char* env = std::getenv("TPLAB_BF16_GEMM");
  const std::string_view asked = env == nullptr ? "auto" : env;
  if (asked == "emulated") return Bf16GemmPath::emulated;
  if (asked == "auto" || asked.empty()) {
    return onednn_bf16_available() ? Bf16GemmPath::onednn : Bf16GemmPath::emulated;
  }
  if (asked != "onednn") {
    throw UsageError(fmt::format(
        "TPLAB_BF16_GEMM={}: use onednn (oneDNN's bf16 kernels), emulated (f32 GEMM on widened "
        "operands) or auto (oneDNN where this CPU has bf16 instructions)",
        asked));
  }
  if (!onednn_bf16_available()) {
#ifdef TPLAB_HAVE_ONEDNN
    throw UsageError(
        "TPLAB_BF16_GEMM=onednn: oneDNN finds no bf16 matmul instructions on this CPU "
        "(AVX512-BF16 or AMX; DNNL_MAX_CPU_ISA may hide them); unset it to use the emulation");
#else
    throw UsageError(
        "TPLAB_BF16_GEMM=onednn: this build has no oneDNN (Debian: libdnnl-dev, then "
        "configure again with TPLAB_ONEDNN=ON); unset it to use the emulation");
#endif
  }
  return Bf16GemmPath::onednn;
}

std::string describe(Bf16GemmPath path) {
#ifdef TPLAB_HAVE_ONEDNN
  if (path == Bf16GemmPath::onednn) return onednn::version() + " on " + onednn::bf16_isa();
#endif
  (void)path;
  return "emulation (the f32 GEMM on widened operands)";
}

std::unique_ptr<GemmOps> make_gemm_ops() {
  return std::make_unique<CpuGemm>(std::nullopt);
}

std::unique_ptr<GemmOps> make_gemm_ops(Bf16GemmPath bf16) {
  return std::make_unique<CpuGemm>(bf16);
}

}  // namespace tplab::cpu
