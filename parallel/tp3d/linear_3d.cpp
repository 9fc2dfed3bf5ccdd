/// @file
/// Linear3D: the weight gather, the local product and the output reduce-scatter.
#include "tp3d/linear_3d.hpp"

namespace tplab::tp3d {

Linear3D::Linear3D(Device& device, const Grid3D& grid, LinearRoles roles, Tensor weight,
                   Tensor bias, ExecutionPolicy policy)
    : device_(device),
      weight_group_(grid.axis(Axis3D::weight)),
      output_group_(grid.axis(roles.output)),
      bias_group_(grid.plane_with_weight(roles.output)),
      policy_(policy),
      weight_(std::move(weight)),
      bias_(std::move(bias)) {}

Tensor Linear3D::gather_weight() {
  // [in/q^2, out/q] -> [in/q, out/q]
  Tensor gathered =
      device_.empty({weight_.rows() * weight_group_.size(), weight_.cols()}, weight_.dtype());
  // Blocking: the product that follows needs the whole of W~ at once (with overlap, forward
  // takes W~ from prefetch_weight instead).
  weight_group_.all_gather(weight_, gathered);
  return gathered;
}

void Linear3D::prefetch_weight() {
  if (!policy_.overlap || prefetched_.defined()) return;
  // [in/q^2, out/q] -> [in/q, out/q]
  prefetched_ =
      device_.empty({weight_.rows() * weight_group_.size(), weight_.cols()}, weight_.dtype());
  prefetch_ = weight_group_.start_all_gather(weight_, prefetched_);
}

Tensor Linear3D::forward(const Tensor& x_gathered) {
  Tensor weight_gathered;
  if (prefetched_.defined()) {
    prefetch_.wait();
    weight_gathered = std::move(prefetched_);
    prefetched_ = Tensor();
  } else {
    weight_gathered = gather_weight();
  }
  if (!policy_.regather) weight_gathered_ = weight_gathered;
  Tensor partial = device_.empty({x_gathered.rows(), weight_.cols()}, x_gathered.dtype());
  // [m/q, in/q] x [in/q, out/q] -> [m/q, out/q]   (a partial sum: this rank's in-features only)
  device_.matmul(x_gathered, Transpose::no, weight_gathered, Transpose::no, partial);
  Tensor y =
      device_.empty({partial.rows() / output_group_.size(), partial.cols()}, partial.dtype());
  // Blocking: the bias is added to the sum at once, and the next layer reads it.
  output_group_.reduce_scatter(partial, y);
  // after the sum, so that the bias is added once and not q times
  device_.add_bias(y, bias_);
  return y;
}

Tensor Linear3D::backward(const Tensor& dy, const Tensor& x_gathered) {
  Tensor dy_gathered = device_.empty({dy.rows() * output_group_.size(), dy.cols()}, dy.dtype());
  // Blocking: both products below read the whole of dY~.
  output_group_.all_gather(dy, dy_gathered);
  const Tensor weight_gathered = policy_.regather ? gather_weight() : weight_gathered_;

  Tensor weight_grad_gathered = device_.empty(weight_gathered.extents(), dy.dtype());
  // [m/q, in/q]^T x [m/q, out/q] -> [in/q, out/q]   (a partial sum: this rank's tokens)
  device_.matmul(x_gathered, Transpose::yes, dy_gathered, Transpose::no, weight_grad_gathered);
  weight_grad_ = device_.empty(weight_.extents(), dy.dtype());
  // [in/q, out/q] -> [in/q^2, out/q]; with overlap, in flight during dX~'s product
  CommRequest weight_sum =
      policy_.reduce_scatter(weight_group_, weight_grad_gathered, weight_grad_);

  Tensor dx_gathered = device_.empty(x_gathered.extents(), dy.dtype());
  // [m/q, out/q] x [in/q, out/q]^T -> [m/q, in/q]   (a partial sum: this rank's out-features)
  device_.matmul(dy_gathered, Transpose::no, weight_gathered, Transpose::yes, dx_gathered);
  weight_sum.wait();

  // The bias is the same on the q^2 ranks of the output x weight plane, whose dY together
  // cover every token.
  bias_grad_ = device_.empty(bias_.extents(), dy.dtype());
  device_.column_sum(dy, bias_grad_);
  // Blocking: the last step of backward, with nothing left to compute while it travels.
  bias_group_.all_reduce(bias_grad_);
  return dx_gathered;
}

}  // namespace tplab::tp3d
