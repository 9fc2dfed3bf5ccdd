/// @file
/// CpuDevice: the Device interface on the host with Eigen (and, where they were found at
/// configure time, oneDNN's sgemm for f32 and OpenBLAS's dgemm for f64 matmuls), one thread
/// per rank.
#pragma once

#include "device/device.hpp"

namespace tplab {

/// Host implementation of Device with Eigen maps over the tensors' memory (no copies in the
/// hot paths). f64, f32 and bf16 (stored as bf16, computed in f32 with one rounding of each
/// output, as the GPU computes it: device/bf16_widening.hpp). f32 matmuls go to oneDNN's sgemm
/// and f64 matmuls to OpenBLAS's dgemm when the build found them (TPLAB_ONEDNN,
/// TPLAB_OPENBLAS), bf16 matmuls to oneDNN's bf16 kernels where the CPU has them. All
/// run single-threaded here: the parallelism of a run is its MPI ranks. The families of
/// operations are in device/ops/*_cpu.cpp; this class holds memory.
class CpuDevice final : public Device {
 public:
  /// A device with the CPU object of every family (device/ops/cpu_ops.hpp).
  CpuDevice();
  /// A CPU device whose compute operations are `families`' (cpu::make_families() with one
  /// replaced: a test plants a faulty kernel and watches a check catch it).
  explicit CpuDevice(DeviceFamilies families);

  DeviceKind kind() const override { return DeviceKind::cpu; }
  std::string description() const override;

  Tensor empty(const Extents& extents, DType dtype) override;

 protected:
  void fill_values(Tensor& x, double value) override;
  void copy_values(const Tensor& src, Tensor& dst) override;
  void upload_values(std::span<const double> host, Tensor& dst) override;
  void download_values(const Tensor& src, std::span<double> host) override;
  std::int64_t find_nonfinite(const Tensor& x) override;
};

}  // namespace tplab
