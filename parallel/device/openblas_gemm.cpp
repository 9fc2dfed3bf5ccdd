#include "device/openblas_gemm.hpp"

#include <cblas.h>
#include <fmt/format.h>

#include <limits>
#include <sstream>

#include "core/error.hpp"

namespace tplab::openblas {
namespace {

blasint blas_int(std::int64_t v) {
  if (v > std::numeric_limits<blasint>::max()) {
    throw InternalError(fmt::format("dgemm extent {} is too large for this OpenBLAS", v));
  }
  return static_cast<blasint>(v);
}

}  // namespace

void dgemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
           double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
           double beta, double* c, std::int64_t ldc) {
  // OpenBLAS would start a thread per core in every rank; one thread per rank keeps ranks
  // from competing for the cores. Set once, on first use. OPENBLAS_CORETYPE, where set,
  // still chooses the kernels.
  static const bool single_thread = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)single_thread;
  cblas_dgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
              transpose_b ? CblasTrans : CblasNoTrans, blas_int(m), blas_int(n), blas_int(k), alpha,
              a, blas_int(lda), b, blas_int(ldb), beta, c, blas_int(ldc));
}

std::string version() {
  // openblas_get_config() reads "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64"
  std::istringstream words(openblas_get_config());
  std::string name, number;
  words >> name >> number;
  return fmt::format("{} {} ({} kernels)", name, number, openblas_get_corename());
}

}  // namespace tplab::openblas
