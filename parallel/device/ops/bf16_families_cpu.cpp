/// @file
/// bf16 for every CPU family but the matrix products (gemm_cpu.cpp has its own bf16 paths):
/// each operation's bf16 operands widened to f32, the f32 kernel run on them, and each output
/// rounded once back to bf16 (WidenedBf16), as the CUDA kernels compute bf16.
#include "device/bf16_widening.hpp"
#include "device/ops/cpu_ops.hpp"

namespace tplab::cpu {
namespace {

class Bf16Elementwise final : public ElementwiseOps {
 public:
  explicit Bf16Elementwise(std::unique_ptr<ElementwiseOps> f32) : f32_(std::move(f32)) {}
  void add_inplace(Tensor& y, const Tensor& x) override {
    WidenedBf16 w("add_inplace");
    f32_->add_inplace(w.out(y), w.in(x));
  }
  void scale(Tensor& x, double alpha) override {
    WidenedBf16 w("scale");
    f32_->scale(w.out(x), alpha);
  }
  void add_bias(Tensor& y, const Tensor& bias) override {
    WidenedBf16 w("add_bias");
    f32_->add_bias(w.out(y), w.in(bias));
  }
  void column_sum(const Tensor& x, Tensor& out, double beta) override {
    WidenedBf16 w("column_sum");
    f32_->column_sum(w.in(x), w.out(out), beta);
  }
  void dropout(Tensor& x, const DropoutMask& mask) override {
    WidenedBf16 w("dropout");
    f32_->dropout(w.out(x), mask);
  }

 private:
  std::unique_ptr<ElementwiseOps> f32_;
};

class Bf16Gelu final : public GeluOps {
 public:
  explicit Bf16Gelu(std::unique_ptr<GeluOps> f32) : f32_(std::move(f32)) {}
  void gelu_forward(const Tensor& x, Tensor& y) override {
    WidenedBf16 w("gelu_forward");
    f32_->gelu_forward(w.in(x), w.out(y));
  }
  void gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx) override {
    WidenedBf16 w("gelu_backward");
    f32_->gelu_backward(w.in(x), w.in(dy), w.out(dx));
  }

 private:
  std::unique_ptr<GeluOps> f32_;
};

class Bf16Softmax final : public SoftmaxOps {
 public:
  explicit Bf16Softmax(std::unique_ptr<SoftmaxOps> f32) : f32_(std::move(f32)) {}
  void causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) override {
    WidenedBf16 w("causal_softmax_forward");
    f32_->causal_softmax_forward(w.in(scores), scale, w.out(probs));
  }
  void causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                               Tensor& dscores) override {
    WidenedBf16 w("causal_softmax_backward");
    f32_->causal_softmax_backward(w.in(probs), w.in(dprobs), scale, w.out(dscores));
  }

 private:
  std::unique_ptr<SoftmaxOps> f32_;
};

class Bf16Heads final : public HeadsOps {
 public:
  explicit Bf16Heads(std::unique_ptr<HeadsOps> f32) : f32_(std::move(f32)) {}
  void split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) override {
    WidenedBf16 w("split_heads");
    f32_->split_heads(w.in(x), batch, heads, w.out(out));
  }
  void merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) override {
    WidenedBf16 w("merge_heads");
    f32_->merge_heads(w.in(x), batch, heads, w.out(out));
  }

 private:
  std::unique_ptr<HeadsOps> f32_;
};

class Bf16LayerNorm final : public LayerNormOps {
 public:
  explicit Bf16LayerNorm(std::unique_ptr<LayerNormOps> f32) : f32_(std::move(f32)) {}
  void row_sum(const Tensor& x, Tensor& out) override {
    WidenedBf16 w("row_sum");
    f32_->row_sum(w.in(x), w.out(out));
  }
  void row_sum_squared_deviation(const Tensor& x, const Tensor& mean, Tensor& out) override {
    WidenedBf16 w("row_sum_squared_deviation");
    f32_->row_sum_squared_deviation(w.in(x), w.in(mean), w.out(out));
  }
  void layernorm_apply(const Tensor& x, const Tensor& mean, const Tensor& var, double eps,
                       const Tensor& gamma, const Tensor& beta, Tensor& xhat, Tensor& rstd,
                       Tensor& y) override {
    WidenedBf16 w("layernorm_apply");
    f32_->layernorm_apply(w.in(x), w.in(mean), w.in(var), eps, w.in(gamma), w.in(beta), w.out(xhat),
                          w.out(rstd), w.out(y));
  }
  void layernorm_backward_sums(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                               Tensor& sums) override {
    WidenedBf16 w("layernorm_backward_sums");
    f32_->layernorm_backward_sums(w.in(dy), w.in(gamma), w.in(xhat), w.out(sums));
  }
  void layernorm_backward_input(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                const Tensor& rstd, const Tensor& sums, std::int64_t features,
                                Tensor& dx) override {
    WidenedBf16 w("layernorm_backward_input");
    f32_->layernorm_backward_input(w.in(dy), w.in(gamma), w.in(xhat), w.in(rstd), w.in(sums),
                                   features, w.out(dx));
  }
  void layernorm_backward_params(const Tensor& dy, const Tensor& xhat, Tensor& dgamma,
                                 Tensor& dbeta) override {
    WidenedBf16 w("layernorm_backward_params");
    f32_->layernorm_backward_params(w.in(dy), w.in(xhat), w.out(dgamma), w.out(dbeta));
  }

 private:
  std::unique_ptr<LayerNormOps> f32_;
};

class Bf16Vocabulary final : public VocabularyOps {
 public:
  explicit Bf16Vocabulary(std::unique_ptr<VocabularyOps> f32) : f32_(std::move(f32)) {}
  void gather_rows(const Tensor& table, std::span<const std::int64_t> rows, Tensor& out) override {
    WidenedBf16 w("gather_rows");
    f32_->gather_rows(w.in(table), rows, w.out(out));
  }
  void scatter_add_rows(const Tensor& src, std::span<const std::int64_t> rows,
                        Tensor& table) override {
    WidenedBf16 w("scatter_add_rows");
    f32_->scatter_add_rows(w.in(src), rows, w.out(table));
  }
  void row_max(const Tensor& x, Tensor& out) override {
    WidenedBf16 w("row_max");
    f32_->row_max(w.in(x), w.out(out));
  }
  void cross_entropy_sums(const Tensor& logits, const Tensor& max,
                          std::span<const std::int64_t> targets, Tensor& sums) override {
    WidenedBf16 w("cross_entropy_sums");
    f32_->cross_entropy_sums(w.in(logits), w.in(max), targets, w.out(sums));
  }
  void cross_entropy_backward(const Tensor& logits, const Tensor& max, const Tensor& sums,
                              std::span<const std::int64_t> targets, double scale,
                              Tensor& dlogits) override {
    WidenedBf16 w("cross_entropy_backward");
    f32_->cross_entropy_backward(w.in(logits), w.in(max), w.in(sums), targets, scale,
                                 w.out(dlogits));
  }
  void fill_columns_from(Tensor& x, std::int64_t col0, double value) override {
    WidenedBf16 w("fill_columns_from");
    f32_->fill_columns_from(w.out(x), col0, value);
  }

 private:
  std::unique_ptr<VocabularyOps> f32_;
};

class Bf16Optimizer final : public OptimizerOps {
 public:
  explicit Bf16Optimizer(std::unique_ptr<OptimizerOps> f32) : f32_(std::move(f32)) {}
  double sum_of_squares(const Tensor& x) override {
    WidenedBf16 w("sum_of_squares");
    return f32_->sum_of_squares(w.in(x));
  }
  void adamw_update(Tensor& p, const Tensor& g, Tensor& m, Tensor& v,
                    const AdamWStep& step) override {
    WidenedBf16 w("adamw_update");
    f32_->adamw_update(w.out(p), w.in(g), w.out(m), w.out(v), step);
  }

 private:
  std::unique_ptr<OptimizerOps> f32_;
};

}  // namespace

DeviceFamilies with_bf16(DeviceFamilies f) {
  f.elementwise = std::make_unique<Bf16Elementwise>(std::move(f.elementwise));
  f.gelu = std::make_unique<Bf16Gelu>(std::move(f.gelu));
  f.softmax = std::make_unique<Bf16Softmax>(std::move(f.softmax));
  f.heads = std::make_unique<Bf16Heads>(std::move(f.heads));
  f.layernorm = std::make_unique<Bf16LayerNorm>(std::move(f.layernorm));
  f.vocabulary = std::make_unique<Bf16Vocabulary>(std::move(f.vocabulary));
  f.optimizer = std::make_unique<Bf16Optimizer>(std::move(f.optimizer));
  return f;
}

}  // namespace tplab::cpu
