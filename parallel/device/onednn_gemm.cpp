#include "device/onednn_gemm.hpp"

#include <dnnl.h>
#include <fmt/format.h>
#include <omp.h>

#include <dnnl.hpp>
#include <map>
#include <tuple>

#include "core/error.hpp"

namespace tplab::onednn {
namespace {

/// Debian's oneDNN runs on OpenMP, which would start a thread per core in every rank; one
/// thread per rank keeps ranks from competing for the cores. Set once, on first use.
void use_one_thread() {
  static const bool single_thread = [] {
    omp_set_num_threads(1);
    return true;
  }();
  (void)single_thread;
}

/// The CPU engine and its stream, made on first use.
struct Engine {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};
Engine& cpu_engine() {
  static Engine e;
  return e;
}

/// A row-major [rows, cols] matrix, or its transpose read from a row-major [cols, rows] one.
dnnl::memory::desc matrix_desc(std::int64_t rows, std::int64_t cols, std::int64_t ld,
                               bool transposed, dnnl::memory::data_type type) {
  const dnnl::memory::dims strides =
      transposed ? dnnl::memory::dims{1, ld} : dnnl::memory::dims{ld, 1};
  return dnnl::memory::desc({rows, cols}, type, strides);
}

}  // namespace

void sgemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
           float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc) {
  use_one_thread();
  const dnnl_status_t status = dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', m, n, k,
                                          alpha, a, lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) {
    throw InternalError(fmt::format("dnnl_sgemm [{}, {}] x [{}, {}] failed with status {}", m, k, k,
                                    n, static_cast<int>(status)));
  }
}

std::string bf16_isa() {
  const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  if ((isa & dnnl_cpu_isa_avx512_core_amx) == dnnl_cpu_isa_avx512_core_amx) {
    return "avx512_core_amx";
  }
  if ((isa & dnnl_cpu_isa_avx512_core_bf16) == dnnl_cpu_isa_avx512_core_bf16) {
    return "avx512_core_bf16";
  }
  return "";
}

void bf16_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
               float alpha, const std::uint16_t* a, std::int64_t lda, const std::uint16_t* b,
               std::int64_t ldb, float* c, std::int64_t ldc) {
  use_one_thread();
  if (bf16_isa().empty()) {
    throw InternalError("oneDNN's bf16 GEMM asked for on a CPU without bf16 matmul instructions");
  }
  using Form = std::tuple<bool, bool, std::int64_t, std::int64_t, std::int64_t, float, std::int64_t,
                          std::int64_t, std::int64_t>;
  static std::map<Form, dnnl::matmul> primitives;
  const Form form{transpose_a, transpose_b, m, n, k, alpha, lda, ldb, ldc};
  using dt = dnnl::memory::data_type;
  const dnnl::memory::desc a_desc = matrix_desc(m, k, lda, transpose_a, dt::bf16);
  const dnnl::memory::desc b_desc = matrix_desc(k, n, ldb, transpose_b, dt::bf16);
  const dnnl::memory::desc c_desc = matrix_desc(m, n, ldc, false, dt::f32);
  Engine& e = cpu_engine();
  auto found = primitives.find(form);
  if (found == primitives.end()) {
    dnnl::primitive_attr attr;
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_desc, b_desc, c_desc), attr,
                                          e.engine);
    found = primitives.emplace(form, dnnl::matmul(pd)).first;
  }
  // oneDNN's memory objects take non-const handles; the inputs are only read.
  dnnl::memory a_mem(a_desc, e.engine, const_cast<std::uint16_t*>(a));
  dnnl::memory b_mem(b_desc, e.engine, const_cast<std::uint16_t*>(b));
  dnnl::memory c_mem(c_desc, e.engine, c);
  found->second.execute(e.stream,
                        {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, c_mem}});
  e.stream.wait();
}

std::string version() {
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("oneDNN {}.{}.{}", v->major, v->minor, v->patch);
}

}  // namespace tplab::onednn
