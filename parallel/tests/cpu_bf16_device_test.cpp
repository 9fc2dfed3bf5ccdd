// CpuDevice in bf16 against CpuDevice in f32, operation by operation
// (device_conformance_test.cpp), with each of its two paths for bf16 products: the portable
// emulation (f32 GEMM on widened operands), which runs on every CPU, and oneDNN's bf16 kernels,
// which skip, saying why, on a CPU without AVX512-BF16 or AMX. Every other operation is the f32
// kernel on widened operands, its outputs rounded once, as the GPU's bf16 kernels compute.
#include "device/ops/cpu_ops.hpp"
#include "device_conformance.hpp"

namespace tplab {
namespace {

/// A CPU device whose bf16 products take `path`.
std::unique_ptr<Device> cpu_with(cpu::Bf16GemmPath path) {
  DeviceFamilies families = cpu::make_families();
  families.gemm = cpu::make_gemm_ops(path);
  return std::make_unique<CpuDevice>(std::move(families));
}

std::unique_ptr<Device> emulated(std::string&) {
  return cpu_with(cpu::Bf16GemmPath::emulated);
}

std::unique_ptr<Device> onednn(std::string& skip) {
  if (!cpu::onednn_bf16_available()) {
    skip =
        "oneDNN's bf16 kernels cannot run here: no oneDNN in this build, or no AVX512-BF16 "
        "or AMX on this CPU (the emulated path is checked instead)";
    return nullptr;
  }
  return cpu_with(cpu::Bf16GemmPath::onednn);
}

INSTANTIATE_TEST_SUITE_P(CpuBf16, DeviceConformance,
                         testing::Values(DeviceUnderTest{"cpu_emulated_bf16", DType::bf16,
                                                         emulated},
                                         DeviceUnderTest{"cpu_onednn_bf16", DType::bf16, onednn}),
                         device_label);

}  // namespace
}  // namespace tplab
