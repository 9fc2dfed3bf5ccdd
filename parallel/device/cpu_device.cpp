#include "device/cpu_device.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/bf16.hpp"
#include "device/eigen_views.hpp"
#include "device/ops/cpu_ops.hpp"
#ifdef TPLAB_HAVE_ONEDNN
#include "device/onednn_gemm.hpp"
#endif
#ifdef TPLAB_HAVE_OPENBLAS
#include "device/openblas_gemm.hpp"
#endif

namespace tplab {

using cpu::ArrayMap;
using cpu::ConstArrayMap;
using cpu::dispatch;
using cpu::flat;
using cpu::require;

DeviceFamilies cpu::make_families() {
  return with_bf16(DeviceFamilies{
      .gemm = make_gemm_ops(),
      .elementwise = make_elementwise_ops(),
      .gelu = make_gelu_ops(),
      .softmax = make_softmax_ops(),
      .heads = make_heads_ops(),
      .layernorm = make_layernorm_ops(),
      .vocabulary = make_vocabulary_ops(),
      .optimizer = make_optimizer_ops(),
  });
}

CpuDevice::CpuDevice() : CpuDevice(cpu::make_families()) {}

CpuDevice::CpuDevice(DeviceFamilies families) : Device(std::move(families)) {}

std::string CpuDevice::description() const {
  std::string text = fmt::format("cpu (Eigen {}.{}.{}", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
                                 EIGEN_MINOR_VERSION);
#ifdef TPLAB_HAVE_ONEDNN
  text += ", f32 GEMM by " + onednn::version();
#endif
#ifdef TPLAB_HAVE_OPENBLAS
  text += ", f64 GEMM by " + openblas::version();
#endif
  try {
    text += ", bf16 GEMM by " + cpu::describe(cpu::chosen_bf16_gemm_path());
  } catch (const UsageError&) {
    text += ", no bf16 GEMM (TPLAB_BF16_GEMM asks for one this CPU cannot run)";
  }
  return text + ", 1 thread)";
}

// ---- memory and read-back -------------------------------------------------------------------

Tensor CpuDevice::empty(const Extents& extents, DType dtype) {
  // 64-byte alignment lets Eigen use full-width vector loads.
  const std::size_t bytes = std::max<std::size_t>(
      64, (static_cast<std::size_t>(element_count(extents)) * dtype_size(dtype) + 63) / 64 * 64);
  auto* raw = static_cast<std::byte*>(std::aligned_alloc(64, bytes));
  if (raw == nullptr) throw std::bad_alloc();
  const std::size_t elements = static_cast<std::size_t>(element_count(extents)) * dtype_size(dtype);
  return Tensor(extents, dtype, DeviceKind::cpu,
                allocations().track(raw, elements, [](std::byte* p) { std::free(p); }));
}

void CpuDevice::fill_values(Tensor& x, double value) {
  if (x.dtype() == DType::bf16) {
    flat<Bf16Bits>(x).setConstant(bf16_from_double(value));
    return;
  }
  dispatch(x.dtype(), [&]<typename T>() { flat<T>(x).setConstant(static_cast<T>(value)); });
}

void CpuDevice::copy_values(const Tensor& src, Tensor& dst) {
  cpu::require_same(src, dst, "copy");
  std::memcpy(dst.data(), src.data(), src.bytes());
}

void CpuDevice::upload_values(std::span<const double> host, Tensor& dst) {
  require(static_cast<std::int64_t>(host.size()) == dst.numel(), "upload",
          fmt::format("{} values for a tensor of {}", host.size(), to_string(dst.extents())));
  if (dst.dtype() == DType::bf16) {
    auto* to = dst.data_as<Bf16Bits>();
    for (std::size_t i = 0; i < host.size(); ++i) to[i] = bf16_from_double(host[i]);
    return;
  }
  dispatch(dst.dtype(), [&]<typename T>() {
    flat<T>(dst) = ConstArrayMap<double>(host.data(), dst.numel()).template cast<T>();
  });
}

void CpuDevice::download_values(const Tensor& src, std::span<double> host) {
  require(static_cast<std::int64_t>(host.size()) == src.numel(), "download",
          fmt::format("{} values for a tensor of {}", host.size(), to_string(src.extents())));
  if (src.dtype() == DType::bf16) {
    const auto* from = src.data_as<Bf16Bits>();
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = float_from_bf16(from[i]);
    return;
  }
  dispatch(src.dtype(), [&]<typename T>() {
    ArrayMap<double>(host.data(), src.numel()) = flat<T>(src).template cast<double>();
  });
}

std::int64_t CpuDevice::find_nonfinite(const Tensor& x) {
  if (x.dtype() == DType::bf16) {
    const auto* v = x.data_as<Bf16Bits>();
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      if (!std::isfinite(float_from_bf16(v[i]))) return i;
    }
    return -1;
  }
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

}  // namespace tplab
