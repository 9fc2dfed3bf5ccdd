#include "tp1d/conjugate_operators.hpp"

namespace tplab::tp1d {
namespace {

/// f before the column-parallel linears (Megatron's copy_to_tensor_model_parallel_region).
class CopyToTensorParallelRegion final : public InputOperator {
 public:
  CopyToTensorParallelRegion(Comm& tp, ExecutionPolicy policy) : tp_(tp), policy_(policy) {}

  Tensor forward(const Tensor& x) override {
    kept_ = x;
    return OperatorF::forward(x);  // [m, h], replicated
  }
  PendingTensor input_for_backward() override { return {kept_, {}}; }
  PendingTensor backward(Tensor partial) override {
    PendingTensor dx{std::move(partial), {}};
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
    PendingTensor x{device_.empty({kept_.rows() * tp_.size(), kept_.cols()}, kept_.dtype()), {}};
    x.arrival = policy_.all_gather(tp_, kept_, x.tensor);  // [m/t, h] -> [m, h]
    return x;
  }
  PendingTensor backward(Tensor partial) override {
    PendingTensor dx{device_.empty(kept_.extents(), kept_.dtype()), {}};
    // summed over ranks, this rank's tokens: [m, h] -> [m/t, h]
    dx.arrival = policy_.reduce_scatter(tp_, partial, dx.tensor);
    return dx;
  }
  std::size_t saved_bytes() const override { return kept_.bytes(); }

 private:
  Device& device_;
  Comm& tp_;
  ExecutionPolicy policy_;
  Tensor kept_;  // X_r [m/t, h]
};

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

std::unique_ptr<InputOperator> make_input_operator(Device& device, Comm& tp, Mode1D mode,
                                                   ExecutionPolicy policy) {
  if (mode.sequence_parallel) {
    return std::make_unique<GatherFromSequenceParallelRegion>(device, tp, policy);
  }
  return std::make_unique<CopyToTensorParallelRegion>(tp, policy);
}

std::unique_ptr<OutputOperator> make_output_operator(Device& device, Comm& tp, Mode1D mode,
                                                     ExecutionPolicy policy) {
  if (mode.sequence_parallel) {
    return std::make_unique<ReduceScatterToSequenceParallelRegion>(device, tp, policy);
  }
  return std::make_unique<ReduceFromTensorParallelRegion>(tp);
}

}  // namespace tplab::tp1d
