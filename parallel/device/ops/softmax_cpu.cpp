/// @file
/// SoftmaxOps on the CPU: the causal softmax row by row, each row shifted by its maximum.
#include "device/eigen_views.hpp"
#include "device/ops/cpu_ops.hpp"

namespace tplab::cpu {
namespace {

class CpuSoftmax final : public SoftmaxOps {
 public:
  void causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) override {
    require_same(scores, probs, "causal_softmax_forward");
    require(scores.rank() == 3 && scores.dim(1) == scores.dim(2), "causal_softmax_forward",
            "scores must be [batch, s, s]");
    dispatch(scores.dtype(), [&]<typename T>() {
      const std::int64_t s = scores.dim(1);
      auto in = rows<T>(scores);
      auto out = rows<T>(probs);
      for (std::int64_t r = 0; r < in.rows(); ++r) {
        const std::int64_t visible = r % s + 1;  // query i sees keys 0..i
        auto x = in.row(r).head(visible);
        auto p = out.row(r);
        const T shift = x.maxCoeff();
        p.head(visible) = (static_cast<T>(scale) * (x - shift)).exp();
        p.head(visible) /= p.head(visible).sum();
        p.tail(s - visible).setZero();
      }
    });
  }

  void causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                               Tensor& dscores) override {
    require_same(probs, dprobs, "causal_softmax_backward");
    require_same(probs, dscores, "causal_softmax_backward");
    dispatch(probs.dtype(), [&]<typename T>() {
      auto p = rows<T>(probs);
      auto dp = rows<T>(dprobs);
      auto ds = rows<T>(dscores);
      for (std::int64_t r = 0; r < p.rows(); ++r) {
        const T dot = (p.row(r) * dp.row(r)).sum();
        // masked entries have p = 0, so their gradient is 0 as well
        ds.row(r) = static_cast<T>(scale) * p.row(r) * (dp.row(r) - dot);
      }
    });
  }
};

}  // namespace

std::unique_ptr<SoftmaxOps> make_softmax_ops() {
  return std::make_unique<CpuSoftmax>();
}

}  // namespace tplab::cpu
