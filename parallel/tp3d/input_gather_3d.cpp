/// @file
/// InputGather3D: the all-gather of a 3D linear's input and the reduce-scatter of its gradient.
#include "tp3d/input_gather_3d.hpp"

namespace tplab::tp3d {

InputGather3D::InputGather3D(Device& device, const Grid3D& grid, LinearRoles roles,
                             ExecutionPolicy policy)
    : device_(device), input_group_(grid.axis(roles.input)), regather_(policy.regather) {}

Tensor InputGather3D::gather(const Tensor& x) {
  // the q row blocks of the input group, stacked in its order: [m/q^2, in/q] -> [m/q, in/q]
  Tensor gathered = device_.empty({x.rows() * input_group_.size(), x.cols()}, x.dtype());
  // Blocking: the products that follow read the whole of X~ at once, and the next linear's
  // weight, the one thing that can travel meanwhile, is prefetched by Linear3D.
  input_group_.all_gather(x, gathered);
  return gathered;
}

Tensor InputGather3D::forward(const Tensor& x) {
  Tensor gathered = gather(x);
  kept_ = regather_ ? x : gathered;
  return gathered;
}

Tensor InputGather3D::gathered_for_backward() {
  return regather_ ? gather(kept_) : kept_;
}

Tensor InputGather3D::backward(const Tensor& dx_gathered) {
  // each rank keeps its row block of the sum: [m/q, in/q] -> [m/q^2, in/q]
  Tensor dx = device_.empty({dx_gathered.rows() / input_group_.size(), dx_gathered.cols()},
                            dx_gathered.dtype());
  // Blocking: dX is the sublayer's result, read at once by the layer before it.
  input_group_.reduce_scatter(dx_gathered, dx);
  return dx;
}

}  // namespace tplab::tp3d
