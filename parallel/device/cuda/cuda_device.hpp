/// @file
/// CudaDevice: the Device interface on one NVIDIA GPU, with cuBLAS for every matrix product
/// and tplab's own kernels for the rest. This header names no CUDA type, so plain C++ code
/// can hold a CudaDevice; its implementation is CUDA (cuda_device.cu, cuda_kernels.cuh).
#pragma once

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
  void fill(Tensor& x, double value) override;
  void copy(const Tensor& src, Tensor& dst) override;
  void upload(std::span<const double> host, Tensor& dst) override;
  void download(const Tensor& src, std::span<double> host) override;

  void matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c, double alpha,
              double beta) override;
  void batched_matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                      double alpha, double beta) override;

  void add_inplace(Tensor& y, const Tensor& x) override;
  void scale(Tensor& x, double alpha) override;
  void add_bias(Tensor& y, const Tensor& bias) override;
  void column_sum(const Tensor& x, Tensor& out, double beta) override;
  void gelu_forward(const Tensor& x, Tensor& y) override;
  void gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx) override;

  void causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) override;
  void causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                               Tensor& dscores) override;
  void split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) override;
  void merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) override;

  std::int64_t first_nonfinite(const Tensor& x) override;

  void row_sum(const Tensor& x, Tensor& out) override;
  void row_sum_squared_deviation(const Tensor& x, const Tensor& mean, Tensor& out) override;
  void layernorm_apply(const Tensor& x, const Tensor& mean, const Tensor& var, double eps,
                       const Tensor& gamma, const Tensor& beta, Tensor& xhat, Tensor& rstd,
                       Tensor& y) override;
  void layernorm_backward_sums(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                               Tensor& sums) override;
  void layernorm_backward_input(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                const Tensor& rstd, const Tensor& sums, std::int64_t features,
                                Tensor& dx) override;
  void layernorm_backward_params(const Tensor& dy, const Tensor& xhat, Tensor& dgamma,
                                 Tensor& dbeta) override;

  void gather_rows(const Tensor& table, std::span<const std::int64_t> rows, Tensor& out) override;
  void scatter_add_rows(const Tensor& src, std::span<const std::int64_t> rows,
                        Tensor& table) override;
  void row_max(const Tensor& x, Tensor& out) override;
  void cross_entropy_sums(const Tensor& logits, const Tensor& max,
                          std::span<const std::int64_t> targets, Tensor& sums) override;
  void cross_entropy_backward(const Tensor& logits, const Tensor& max, const Tensor& sums,
                              std::span<const std::int64_t> targets, double scale,
                              Tensor& dlogits) override;

  /// The stream, the cuBLAS handle and the GPU's properties (defined in cuda_device.cu). Shared
  /// with the tensors' deleters, which free their memory on the stream after the device is gone.
  struct State;

 private:
  /// Column sums of x (or of x * y elementwise, when y is given) into out, + beta * out.
  void column_sums(const Tensor& x, const Tensor* y, Tensor& out, double beta);

  std::shared_ptr<State> state_;
};

}  // namespace tplab
