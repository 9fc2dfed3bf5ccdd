/// @file
/// ElementwiseOps on the CPU, with Eigen.
#include "device/eigen_views.hpp"
#include "device/ops/cpu_ops.hpp"
#include "device/shape_forms.hpp"

namespace tplab::cpu {
namespace {

class CpuElementwise final : public ElementwiseOps {
 public:
  void add_inplace(Tensor& y, const Tensor& x) override {
    require_same(y, x, "add_inplace");
    dispatch(y.dtype(), [&]<typename T>() { flat<T>(y) += flat<T>(x); });
  }

  void scale(Tensor& x, double alpha) override {
    dispatch(x.dtype(), [&]<typename T>() { flat<T>(x) *= static_cast<T>(alpha); });
  }

  void add_bias(Tensor& y, const Tensor& bias) override {
    require(bias.dtype() == y.dtype(), "add_bias", "mixed dtypes");
    require(bias.numel() == y.cols(), "add_bias", add_bias_forms(bias.extents(), y.extents()));
    dispatch(y.dtype(), [&]<typename T>() { rows<T>(y).rowwise() += flat<T>(bias).transpose(); });
  }

  void column_sum(const Tensor& x, Tensor& out, double beta) override {
    require(out.dtype() == x.dtype(), "column_sum", "mixed dtypes");
    require(out.numel() == x.cols(), "column_sum", column_sum_forms(out.extents(), x.extents()));
    dispatch(x.dtype(), [&]<typename T>() {
      const auto sums = column_sums<T>(rows<T>(x));
      if (beta == 0.0) {
        flat<T>(out) = sums;
      } else {
        flat<T>(out) = static_cast<T>(beta) * flat<T>(out) + sums;
      }
    });
  }

  void dropout(Tensor& x, const DropoutMask& mask) override {
    require(x.rank() == 2 || x.rank() == 3, "dropout", "a matrix or a batch of matrices");
    const std::int64_t groups = x.rank() == 3 ? x.dim(0) : 1;
    const std::int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
    dispatch(x.dtype(), [&]<typename T>() {
      const T scale = static_cast<T>(mask.scale);
      T* v = x.data_as<T>();
      for (std::int64_t g = 0; g < groups; ++g) {
        for (std::int64_t r = 0; r < rows; ++r) {
          const std::int64_t first = mask.global_index(g, r, 0);
          for (std::int64_t c = 0; c < cols; ++c, ++v) {
            *v *= mask.keeps(first + c) ? scale : T(0);  // NaN stays NaN
          }
        }
      }
    });
  }
};

}  // namespace

std::unique_ptr<ElementwiseOps> make_elementwise_ops() {
  return std::make_unique<CpuElementwise>();
}

}  // namespace tplab::cpu
