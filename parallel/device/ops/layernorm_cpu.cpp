/// @file
/// LayerNormOps on the CPU, with Eigen: each part of the distributed LayerNorm
/// (layers/layernorm.cpp) as one expression over the rows.
#include "device/eigen_views.hpp"
#include "device/ops/cpu_ops.hpp"

namespace tplab::cpu {
namespace {

class CpuLayerNorm final : public LayerNormOps {
 public:
  void row_sum(const Tensor& x, Tensor& out) override {
    require(out.numel() == x.rows() && out.dtype() == x.dtype(), "row_sum", "one sum per row");
    dispatch(x.dtype(), [&]<typename T>() { flat<T>(out) = rows<T>(x).rowwise().sum(); });
  }

  void row_sum_squared_deviation(const Tensor& x, const Tensor& mean, Tensor& out) override {
    require(out.numel() == x.rows() && mean.numel() == x.rows(), "row_sum_squared_deviation",
            "one mean and one sum per row");
    dispatch(x.dtype(), [&]<typename T>() {
      flat<T>(out) = (rows<T>(x).colwise() - flat<T>(mean)).square().rowwise().sum();
    });
  }

  void layernorm_apply(const Tensor& x, const Tensor& mean, const Tensor& var, double eps,
                       const Tensor& gamma, const Tensor& beta, Tensor& xhat, Tensor& rstd,
                       Tensor& y) override {
    require_same(x, xhat, "layernorm_apply");
    require_same(x, y, "layernorm_apply");
    require(mean.numel() == x.rows() && var.numel() == x.rows() && rstd.numel() == x.rows() &&
                gamma.numel() == x.cols() && beta.numel() == x.cols(),
            "layernorm_apply", "statistics per row and parameters per column");
    dispatch(x.dtype(), [&]<typename T>() {
      flat<T>(rstd) = (flat<T>(var) + static_cast<T>(eps)).rsqrt();
      rows<T>(xhat) = (rows<T>(x).colwise() - flat<T>(mean)).colwise() * flat<T>(rstd);
      rows<T>(y) = (rows<T>(xhat).rowwise() * flat<T>(gamma).transpose()).rowwise() +
                   flat<T>(beta).transpose();
    });
  }

  void layernorm_backward_sums(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                               Tensor& sums) override {
    require_same(dy, xhat, "layernorm_backward_sums");
    require(sums.extents() == Extents{dy.rows(), 2} && gamma.numel() == dy.cols(),
            "layernorm_backward_sums", "sums must be [rows, 2]");
    dispatch(dy.dtype(), [&]<typename T>() {
      const auto g = rows<T>(dy).rowwise() * flat<T>(gamma).transpose();
      auto out = rows<T>(sums);
      out.col(0) = g.rowwise().sum();
      out.col(1) = (g * rows<T>(xhat)).rowwise().sum();
    });
  }

  void layernorm_backward_input(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                const Tensor& rstd, const Tensor& sums, std::int64_t features,
                                Tensor& dx) override {
    require_same(dy, xhat, "layernorm_backward_input");
    require_same(dy, dx, "layernorm_backward_input");
    dispatch(dy.dtype(), [&]<typename T>() {
      const T inv_n = T(1) / static_cast<T>(features);
      const auto s = rows<T>(sums);
      const Eigen::Array<T, Eigen::Dynamic, 1> mean_g = s.col(0) * inv_n;
      const Eigen::Array<T, Eigen::Dynamic, 1> mean_gx = s.col(1) * inv_n;
      rows<T>(dx) = (((rows<T>(dy).rowwise() * flat<T>(gamma).transpose()).colwise() - mean_g) -
                     rows<T>(xhat).colwise() * mean_gx)
                        .colwise() *
                    flat<T>(rstd);
    });
  }

  void layernorm_backward_params(const Tensor& dy, const Tensor& xhat, Tensor& dgamma,
                                 Tensor& dbeta) override {
    require_same(dy, xhat, "layernorm_backward_params");
    require(dgamma.numel() == dy.cols() && dbeta.numel() == dy.cols(), "layernorm_backward_params",
            "one gradient per column");
    dispatch(dy.dtype(), [&]<typename T>() {
      flat<T>(dgamma) = column_sums<T>(rows<T>(dy) * rows<T>(xhat));
      flat<T>(dbeta) = column_sums<T>(rows<T>(dy));
    });
  }
};

}  // namespace

std::unique_ptr<LayerNormOps> make_layernorm_ops() {
  return std::make_unique<CpuLayerNorm>();
}

}  // namespace tplab::cpu
