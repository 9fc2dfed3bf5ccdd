#include "tp1d/column_parallel_linear.hpp"

#include "tp1d/conjugate_operators.hpp"

namespace tplab::tp1d {

ColumnParallelLinear::ColumnParallelLinear(Device& device, Tensor weight, Tensor bias)
    : device_(device), weight_(std::move(weight)), bias_(std::move(bias)) {}

Tensor ColumnParallelLinear::forward(const Tensor& x) {
  x_ = x;
  return apply(x);
}

Tensor ColumnParallelLinear::backward(const Tensor& dy) {
  weight_grads(x_, dy);
  return input_grad(dy);
}

Tensor ColumnParallelLinear::apply(const Tensor& x) const {
  Tensor y = device_.empty({x.rows(), weight_.cols()}, x.dtype());
  // [m, in] x [in, out/t] -> [m, out/t]
  device_.matmul(x, Transpose::no, weight_, Transpose::no, y);
  device_.add_bias(y, bias_);
  return y;
}

Tensor ColumnParallelLinear::input_grad(const Tensor& dy) const {
  Tensor dx = device_.empty({dy.rows(), weight_.rows()}, dy.dtype());
  // [m, out/t] x [in, out/t]^T -> [m, in]   (a partial sum: this rank's columns only)
  device_.matmul(dy, Transpose::no, weight_, Transpose::yes, dx);
  return dx;
}

void ColumnParallelLinear::weight_grads(const Tensor& x, const Tensor& dy) {
  weight_grad_ = device_.empty(weight_.extents(), dy.dtype());
  // [m, in]^T x [m, out/t] -> [in, out/t]
  device_.matmul(x, Transpose::yes, dy, Transpose::no, weight_grad_);
  bias_grad_ = device_.empty(bias_.extents(), dy.dtype());
  device_.column_sum(dy, bias_grad_);
}

// ---- the operator before the column-parallel linears

namespace {

/// f before the column-parallel linears (Megatron's copy_to_tensor_model_parallel_region).
class CopyToTensorParallelRegion final : public InputOperator {
 public:
  CopyToTensorParallelRegion(Comm& tp, ExecutionPolicy policy) : tp_(tp), policy_(policy) {}

  Tensor forward(const Tensor& x) override {
    kept_ = x;
    return OperatorF::forward(x);  // [m, h], replicated
  }
  PendingTensor input_for_backward() override { return {kept_, {}, {}}; }
  PendingTensor backward(Tensor partial) override {
    PendingTensor dx{std::move(partial), {}, {}};
    dx.arrival = OperatorF::backward(tp_, dx.tensor, policy_);  // [m, h] summed over the group
    return dx;
  }
  std::size_t saved_bytes() const override { return kept_.bytes(); }

 private:
  Comm& tp_;
  ExecutionPolicy policy_;
  Tensor kept_;  // X [m, h]
};

/// The sequence-parallel f (Megatron's gather_from_sequence_parallel_region).
class GatherFromSequenceParallelRegion final : public InputOperator {
 public:
  GatherFromSequenceParallelRegion(Device& device, Comm& tp, ExecutionPolicy policy)
      : device_(device), tp_(tp), policy_(policy) {}

  Tensor forward(const Tensor& x) override {
    kept_ = x;
    Tensor full = device_.empty({x.rows() * tp_.size(), x.cols()}, x.dtype());
    tp_.all_gather(x, full);  // [m/t, h] -> [m, h], the ranks' tokens in rank order
    return full;
  }
  PendingTensor input_for_backward() override {
    PendingTensor x{
        device_.empty({kept_.rows() * tp_.size(), kept_.cols()}, kept_.dtype()), {}, {}};
    x.arrival = policy_.all_gather(tp_, kept_, x.tensor);  // [m/t, h] -> [m, h]
    return x;
  }
  PendingTensor backward(Tensor partial) override {
    // partial is read until the reduce-scatter completes: dx holds it until then
    PendingTensor dx{device_.empty(kept_.extents(), kept_.dtype()), std::move(partial), {}};
    // summed over ranks, this rank's tokens: [m, h] -> [m/t, h]
    dx.arrival = policy_.reduce_scatter(tp_, dx.input, dx.tensor);
    return dx;
  }
  std::size_t saved_bytes() const override { return kept_.bytes(); }

 private:
  Device& device_;
  Comm& tp_;
  ExecutionPolicy policy_;
  Tensor kept_;  // X_r [m/t, h]
};

}  // namespace

std::unique_ptr<InputOperator> make_input_operator(Device& device, Comm& tp, Mode1D mode,
                                                   ExecutionPolicy policy) {
  if (mode.sequence_parallel) {
    return std::make_unique<GatherFromSequenceParallelRegion>(device, tp, policy);
  }
  return std::make_unique<CopyToTensorParallelRegion>(tp, policy);
}

}  // namespace tplab::tp1d
