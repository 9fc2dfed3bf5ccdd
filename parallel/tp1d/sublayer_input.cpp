#include "tp1d/sublayer_input.hpp"

#include "tp1d/conjugate_operators.hpp"

namespace tplab::tp1d {

SublayerInput::SublayerInput(Device& device, Comm& tp, Mode1D mode)
    : device_(device), tp_(tp), mode_(mode) {}

CommRequest SublayerInput::gather(const Tensor& shard, Tensor& full) {
  if (mode_.overlap) return tp_.start_all_gather(shard, full);
  tp_.all_gather(shard, full);
  return {};
}

Tensor SublayerInput::forward(const Tensor& x) {
  kept_ = x;
  if (!mode_.sequence_parallel) return OperatorF::forward(x);
  Tensor full = device_.empty({x.rows() * tp_.size(), x.cols()}, x.dtype());
  tp_.all_gather(x, full);  // [m/t, h] -> [m, h], the ranks' tokens in rank order
  return full;
}

Tensor SublayerInput::backward(const std::function<Tensor()>& input_grad,
                               const std::function<void(const Tensor&)>& weight_grads) {
  if (!mode_.sequence_parallel) {
    Tensor dx = input_grad();  // partial [m, h]: this rank's columns only
    CommRequest summing;
    if (mode_.overlap) {
      summing = tp_.start_all_reduce(dx);
    } else {
      OperatorF::backward(tp_, dx);
    }
    weight_grads(kept_);
    summing.wait();
    return dx;
  }
  Tensor x = device_.empty({kept_.rows() * tp_.size(), kept_.cols()}, kept_.dtype());
  CommRequest gathering = gather(kept_, x);  // [m/t, h] -> [m, h], for the weight gradients
  const Tensor partial = input_grad();       // [m, h]: this rank's columns only
  gathering.wait();
  Tensor dx = device_.empty(kept_.extents(), kept_.dtype());
  CommRequest summing;
  if (mode_.overlap) {
    summing = tp_.start_reduce_scatter(partial, dx);
  } else {
    tp_.reduce_scatter(partial, dx);  // summed over ranks, this rank's tokens: [m/t, h]
  }
  weight_grads(x);
  summing.wait();
  return dx;
}

}  // namespace tplab::tp1d
