/// @file
/// CudaDevice: the Device interface on one NVIDIA GPU, with cuBLAS for every matrix product
/// and tplab's own kernels for the rest. This header names no CUDA type, so plain C++ code
/// can hold a CudaDevice; its implementation is CUDA: set-up and memory in cuda_device.cu, each
/// family of operations with its kernels in device/ops/FAMILY.cu.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "device/device.hpp"

namespace tplab {

/// The Device on one GPU. Tensors live in device memory from CUDA's stream-ordered allocator;
/// every operation is enqueued on one stream of this device, in the order of the calls, and
/// returns before the GPU has finished it (download and synchronize wait). Storage in f64, f32
/// or bf16; arithmetic in f32 for f32 and bf16 (f64 for f64), both in our kernels and in
/// cuBLAS (compute type 32F: no TF32; math mode CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION:
/// no reduced-precision reductions). Every operation checks its operands on the host first
/// (cuda_checks.hpp) and every launch after it is issued; with TPLAB_CUDA_SYNC=1 it also waits
/// for each kernel and names the one that fails (launch_sync.hpp).
class CudaDevice final : public Device {
 public:
  /// Binds the calling thread to GPU `ordinal` and makes the stream and the cuBLAS handle.
  /// `ranks_sharing` processes use this GPU (ranks_on_gpu): it sets how much freed memory this
  /// one keeps (gpu_sharing.hpp). Throws NoDeviceError when there is no such GPU, or the driver
  /// cannot run this build's CUDA runtime; UsageError for a malformed TPLAB_CUDA_SYNC.
  explicit CudaDevice(int ordinal, int ranks_sharing = 1);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  /// The number of GPUs this process sees. Throws NoDeviceError, saying why, when it sees none
  /// or cannot use them (device_query.hpp: no GPU, no driver, a driver too old, CUDA failing).
  static int visible_devices();

  /// The GPU's index among those this process sees.
  int ordinal() const;
  /// The GPU's name, e.g. "NVIDIA H200".
  std::string name() const;
  /// The stream every operation is enqueued on, as a cudaStream_t, for communicators that
  /// order their transfers after the kernels that produce their input.
  void* stream() const;
  /// Seconds the GPU spends on the work `enqueue` issues to this device's stream, between two
  /// CUDA events recorded before and after it (waits for the second).
  double time_on_stream(const std::function<void()>& enqueue);

  DeviceKind kind() const override { return DeviceKind::cuda; }
  std::string description() const override;
  void synchronize() override;

  Tensor empty(const Extents& extents, DType dtype) override;

  /// The stream, the cuBLAS handle and the GPU's properties (defined in cuda_state.cuh). Shared
  /// with the families of operations and the tensors' deleters, which free their memory on the
  /// stream after the device is gone.
  struct State;
  /// The event a trace's operations are read against (cuda_device.cu).
  struct TraceOrigin;

 protected:
  void fill_values(Tensor& x, double value) override;
  void copy_values(const Tensor& src, Tensor& dst) override;
  void upload_values(std::span<const double> host, Tensor& dst) override;
  void download_values(const Tensor& src, std::span<double> host) override;
  std::int64_t find_nonfinite(const Tensor& x) override;
  /// An NVTX range named after the operation (nsys shows it) and two CUDA events on the stream
  /// around it, read against an origin event recorded at the first traced operation of each
  /// trace (TraceRecorder::epoch): the operation's span on the GPU's own clock.
  std::unique_ptr<OpTimer> start_op_timer(const char* name, TraceRecorder& trace) override;

 private:
  /// The device on an opened state, with the CUDA object of every family (device/ops/*.cu).
  explicit CudaDevice(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
  std::shared_ptr<const TraceOrigin> trace_origin_;  ///< of the trace of epoch traced_epoch_
  std::uint64_t traced_epoch_ = 0;
};

}  // namespace tplab
