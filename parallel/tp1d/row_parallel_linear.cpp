#include "tp1d/row_parallel_linear.hpp"

#include "tp1d/conjugate_operators.hpp"

namespace tplab::tp1d {

RowParallelLinear::RowParallelLinear(Device& device, Comm& tp, Tensor weight, Tensor bias,
                                     Mode1D mode, ExecutionPolicy policy)
    : device_(device),
      output_(make_output_operator(device, tp, mode, policy)),
      weight_(std::move(weight)),
      bias_(std::move(bias)) {}

Tensor RowParallelLinear::forward(const Tensor& x) {
  x_ = x;
  Tensor partial = device_.empty({x.rows(), weight_.cols()}, x.dtype());
  // [m, in/t] x [in/t, out] -> [m, out]   (a partial sum over this rank's rows of W)
  device_.matmul(x, Transpose::no, weight_, Transpose::no, partial);
  Tensor y = output_->forward(std::move(partial));  // g: [m, out]; SP: [m/t, out]
  device_.add_bias(y, bias_);
  return y;
}

Tensor RowParallelLinear::backward(const Tensor& dy) {
  bias_grad_ = device_.empty(bias_.extents(), dy.dtype());
  device_.column_sum(dy, bias_grad_);  // SP: this rank's tokens' share
  CommRequest bias_sum = output_->sum_bias_grad(bias_grad_);
  const Tensor grad = output_->backward(dy);  // [m, out], whole
  weight_grad_ = device_.empty(weight_.extents(), grad.dtype());
  // [m, in/t]^T x [m, out] -> [in/t, out]
  device_.matmul(x_, Transpose::yes, grad, Transpose::no, weight_grad_);
  Tensor dx = device_.empty(x_.extents(), grad.dtype());
  // [m, out] x [in/t, out]^T -> [m, in/t]
  device_.matmul(grad, Transpose::no, weight_, Transpose::yes, dx);
  bias_sum.wait();
  return dx;
}

// ---- the operator after the row-parallel linear

namespace {

/// g after the row-parallel linear (Megatron's reduce_from_tensor_model_parallel_region).
class ReduceFromTensorParallelRegion final : public OutputOperator {
 public:
  explicit ReduceFromTensorParallelRegion(Comm& tp) : tp_(tp) {}

  Tensor forward(Tensor partial) override {
    OperatorG::forward(tp_, partial);  // [m, out] summed over the group
    return partial;
  }
  Tensor backward(const Tensor& dy) override { return OperatorG::backward(dy); }
  CommRequest sum_bias_grad(Tensor&) override { return {}; }  // dY is whole on every rank

 private:
  Comm& tp_;
};

/// The sequence-parallel g (Megatron's reduce_scatter_to_sequence_parallel_region).
class ReduceScatterToSequenceParallelRegion final : public OutputOperator {
 public:
  ReduceScatterToSequenceParallelRegion(Device& device, Comm& tp, ExecutionPolicy policy)
      : device_(device), tp_(tp), policy_(policy) {}

  Tensor forward(Tensor partial) override {
    Tensor y = device_.empty({partial.rows() / tp_.size(), partial.cols()}, partial.dtype());
    tp_.reduce_scatter(partial, y);  // summed over ranks, this rank's tokens: [m/t, out]
    return y;
  }
  Tensor backward(const Tensor& dy) override {
    Tensor whole = device_.empty({dy.rows() * tp_.size(), dy.cols()}, dy.dtype());
    tp_.all_gather(dy, whole);  // [m/t, out] -> [m, out]
    return whole;
  }
  CommRequest sum_bias_grad(Tensor& bias_grad) override {
    return policy_.all_reduce(tp_, bias_grad);  // each rank summed its own tokens only
  }

 private:
  Device& device_;
  Comm& tp_;
  ExecutionPolicy policy_;
};

}  // namespace

std::unique_ptr<OutputOperator> make_output_operator(Device& device, Comm& tp, Mode1D mode,
                                                     ExecutionPolicy policy) {
  if (mode.sequence_parallel) {
    return std::make_unique<ReduceScatterToSequenceParallelRegion>(device, tp, policy);
  }
  return std::make_unique<ReduceFromTensorParallelRegion>(tp);
}

}  // namespace tplab::tp1d
