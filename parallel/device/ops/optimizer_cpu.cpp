/// @file
/// OptimizerOps on the CPU: a shard's sum of squares and the AdamW update, element by element
/// in index order (training only; train/ and gpt/gpt_optimizer.cpp).
#include <cmath>

#include "device/eigen_views.hpp"
#include "device/ops/cpu_ops.hpp"

namespace tplab::cpu {
namespace {

class CpuOptimizer final : public OptimizerOps {
 public:
  double sum_of_squares(const Tensor& x) override {
    double sum = 0;
    dispatch(x.dtype(), [&]<typename T>() {
      const auto v = flat<T>(x);
      for (Eigen::Index i = 0; i < v.size(); ++i) {
        const auto e = static_cast<double>(v[i]);
        sum += e * e;
      }
    });
    return sum;
  }

  void adamw_update(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, const AdamWStep& s) override {
    require_same(p, g, "adamw_update");
    require_same(p, m, "adamw_update");
    require_same(p, v, "adamw_update");
    dispatch(p.dtype(), [&]<typename T>() {
      auto param = flat<T>(p);
      const auto grad = flat<T>(g);
      auto first = flat<T>(m);
      auto second = flat<T>(v);
      const T lr = static_cast<T>(s.learning_rate), b1 = static_cast<T>(s.beta1),
              b2 = static_cast<T>(s.beta2), eps = static_cast<T>(s.eps),
              decay = static_cast<T>(1.0 - s.learning_rate * s.weight_decay),
              correction1 = static_cast<T>(1.0 - std::pow(s.beta1, static_cast<double>(s.step))),
              correction2 = static_cast<T>(1.0 - std::pow(s.beta2, static_cast<double>(s.step)));
      for (Eigen::Index i = 0; i < param.size(); ++i) {
        first[i] = b1 * first[i] + (T(1) - b1) * grad[i];
        second[i] = b2 * second[i] + (T(1) - b2) * grad[i] * grad[i];
        const T update = (first[i] / correction1) / (std::sqrt(second[i] / correction2) + eps);
        param[i] = param[i] * decay - lr * update;
      }
    });
  }
};

}  // namespace

std::unique_ptr<OptimizerOps> make_optimizer_ops() {
  return std::make_unique<CpuOptimizer>();
}

}  // namespace tplab::cpu
