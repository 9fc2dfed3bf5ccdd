#include "mfu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "fma_peak.hpp"
#include "hardware.hpp"
#include "process_resources.hpp"

namespace tplab::app {

nlohmann::json measured_peak(DType dtype) {
  // bf16 is computed in f32 on the CPU, but for oneDNN's bf16 products on AMX or AVX512-BF16,
  // whose own peak the FMA kernel does not measure
  const DType computed = dtype == DType::bf16 ? DType::f32 : dtype;
  const bench::CorePeak peak = bench::fastest_core_peak(computed, 0.05, 3);
  std::string source = "measured now by the FMA kernel of tplab bench peak";
  if (dtype == DType::bf16) {
    source +=
        "; f32's peak for bf16, which the CPU computes in f32 (oneDNN's bf16 GEMMs may run "
        "above it)";
  }
  return {{"dtype", std::string(dtype_name(computed))},
          {"path", peak.path},
          {"flops_per_s_per_core", peak.flops_per_second},
          {"cores", bench::available_cores()},
          {"source", source}};
}

double model_flops_utilisation(double flops_per_second, int np, const nlohmann::json& peak) {
  const int cores = std::min(np, peak["cores"].get<int>());
  return flops_per_second / (cores * peak["flops_per_s_per_core"].get<double>());
}

nlohmann::json gpu_dense_peak(const std::string& gpu, DType dtype) {
  std::optional<model::GpuPeak> peak;
  try {
    peak = model::gpu_peak(model::available_profiles(), gpu, dtype_name(dtype));
  } catch (const UsageError& e) {
    // The benchmark's own results do not depend on the profiles: say why there is no MFU.
    fmt::print(stderr, "tplab: bench gpu: no MFU: {}\n", e.what());
    return nullptr;
  }
  if (!peak) return nullptr;
  return {{"dtype", peak->dtype},
          {"flops_per_s", peak->flops_per_s},
          {"sparse_flops_per_s", peak->sparse_flops_per_s},
          {"sparsity", "dense"},
          {"profile", peak->profile},
          {"source", peak->source}};
}

}  // namespace tplab::app
