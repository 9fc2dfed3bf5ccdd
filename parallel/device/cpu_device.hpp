/// @file
/// CpuDevice: the Device interface on the host with Eigen (and, where they were found at
/// configure time, oneDNN's sgemm for f32 and OpenBLAS's dgemm for f64 matmuls), one thread
/// per rank.
#pragma once

#include "device/device.hpp"

namespace tplab {

/// Host implementation of Device with Eigen maps over the tensors' memory (no copies in the
/// hot paths). f64 and f32; bf16 belongs to the GPU. f32 matmuls go to oneDNN's sgemm and f64
/// matmuls to OpenBLAS's dgemm when the build found them (TPLAB_ONEDNN, TPLAB_OPENBLAS). All
/// run single-threaded here: the parallelism of a run is its MPI ranks.
class CpuDevice final : public Device {
 public:
  DeviceKind kind() const override { return DeviceKind::cpu; }
  std::string description() const override;

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
};

}  // namespace tplab
