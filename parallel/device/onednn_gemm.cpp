#include "device/onednn_gemm.hpp"

#include <dnnl.h>
#include <fmt/format.h>
#include <omp.h>

#include "core/error.hpp"

namespace tplab::onednn {

void sgemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
           float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc) {
  // Debian's oneDNN runs on OpenMP, which would start a thread per core in every rank; one
  // thread per rank keeps ranks from competing for the cores. Set once, on first use.
  static const bool single_thread = [] {
    omp_set_num_threads(1);
    return true;
  }();
  (void)single_thread;
  const dnnl_status_t status = dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', m, n, k,
                                          alpha, a, lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) {
    throw InternalError(fmt::format("dnnl_sgemm [{}, {}] x [{}, {}] failed with status {}", m, k, k,
                                    n, static_cast<int>(status)));
  }
}

std::string version() {
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("oneDNN {}.{}.{}", v->major, v->minor, v->patch);
}

}  // namespace tplab::onednn
