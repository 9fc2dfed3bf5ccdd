/// @file
/// GeluOps on the CPU, with Eigen: gelu_tanh(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
#include "device/eigen_views.hpp"
#include "device/ops/cpu_ops.hpp"

namespace tplab::cpu {
namespace {

constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluCubic = 0.044715;

class CpuGelu final : public GeluOps {
 public:
  void gelu_forward(const Tensor& x, Tensor& y) override {
    require_same(x, y, "gelu_forward");
    dispatch(x.dtype(), [&]<typename T>() {
      const auto v = flat<T>(x);
      const T c = static_cast<T>(kSqrt2OverPi);
      const T k = static_cast<T>(kGeluCubic);
      flat<T>(y) = T(0.5) * v * (T(1) + (c * (v + k * v.cube())).tanh());
    });
  }

  void gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx) override {
    require_same(x, dy, "gelu_backward");
    require_same(x, dx, "gelu_backward");
    dispatch(x.dtype(), [&]<typename T>() {
      const auto v = flat<T>(x);
      const T c = static_cast<T>(kSqrt2OverPi);
      const T k = static_cast<T>(kGeluCubic);
      const Eigen::Array<T, Eigen::Dynamic, 1> t = (c * (v + k * v.cube())).tanh();
      // d/dx [x/2 (1 + t(x))] = (1 + t)/2 + x/2 (1 - t^2) c (1 + 3k x^2)
      flat<T>(dx) = flat<T>(dy) * (T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t.square()) * c *
                                                             (T(1) + T(3) * k * v.square()));
    });
  }
};

}  // namespace

std::unique_ptr<GeluOps> make_gelu_ops() {
  return std::make_unique<CpuGelu>();
}

}  // namespace tplab::cpu
