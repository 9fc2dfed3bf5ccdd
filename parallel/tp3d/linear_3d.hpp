/// @file
/// Linear3D: Y = X W + b with X, W and Y each split over two axes of the q x q x q cube.
#pragma once

#include "device/device.hpp"
#include "scheme/execution_policy.hpp"
#include "tp3d/linear_roles.hpp"

namespace tplab::tp3d {

/// The product X W has q^3 block products: (token block, in-feature block, out-feature
/// block). Each rank computes one of them, so no product is computed twice. With a, t and c
/// the rank's coordinates along the roles' input, weight and output axes (for
/// kReadsBlockLayout: i, j and k):
///
///   X[m/q^2, in/q]    token block t*q + a, in-feature block c
///   W[in/q^2, out/q]  in-feature block c*q + t, out-feature block a
///   b[out/q]          out-feature block a, the same on the q^2 ranks of the output x weight plane
///   Y[m/q^2, out/q]   token block t*q + c, out-feature block a
///
///   forward:  X~ = all_gather(X over input)          [m/q, in/q]     (InputGather3D)
///             W~ = all_gather(W over weight)         [in/q, out/q]
///             P  = X~ W~                             [m/q, out/q], a partial sum over c
///             Y  = reduce_scatter(P over output) + b [m/q^2, out/q]
///   backward: dY~ = all_gather(dY over output)       [m/q, out/q]
///             dX~ = dY~ W~^T                         [m/q, in/q]    (InputGather3D scatters it)
///             dW  = reduce_scatter(X~^T dY~ over weight)  [in/q^2, out/q]
///             db  = all_reduce(sum_rows dY over output x weight)  [out/q]
///
/// Every gather and scatter joins or cuts row blocks, which is what Comm's collectives do, so
/// no tensor needs rearranging. The all-gather of X and the reduce-scatter of dX~ belong to
/// InputGather3D, so that linears reading the same X (Q, K and V) share them.
///
/// W~ is kept from forward for backward, or, with the policy's `regather`, gathered again there
/// (see InputGather3D for the trade). With the policy's `overlap`, a sublayer starts the gather of
/// the next linear's W~ before this one's product (prefetch_weight), and backward starts dW's
/// reduce-scatter before computing dX~, so that both travel during a product.
class Linear3D {
 public:
  /// A layer with this rank\'s weight and bias shards, in the given roles, run under `policy`.
  Linear3D(Device& device, const Grid3D& grid, LinearRoles roles, Tensor weight, Tensor bias,
           ExecutionPolicy policy = {});

  /// X~ -> Y.
  Tensor forward(const Tensor& x_gathered);
  /// With the policy's overlap, starts the all-gather of W~ that the next forward() needs, so
  /// that it travels while the caller computes something else (the previous linear's
  /// product); elsewhere does nothing.
  void prefetch_weight();
  /// dY and X~ -> this layer's dX~ (to be summed and reduce-scattered by InputGather3D); fills
  /// the weight and bias gradients.
  Tensor backward(const Tensor& dy, const Tensor& x_gathered);

  /// The weight gradient shard (valid after backward).
  const Tensor& weight_grad() const { return weight_grad_; }
  /// The bias gradient shard (valid after backward).
  const Tensor& bias_grad() const { return bias_grad_; }
  /// Lets go of the kept W~ (a prefetch on its way stays: the next forward takes it).
  void forget() { weight_gathered_ = Tensor(); }

 private:
  Tensor gather_weight();

  Device& device_;
  Comm& weight_group_;
  Comm& output_group_;
  Comm& bias_group_;
  ExecutionPolicy policy_;
  Tensor weight_, bias_;
  Tensor weight_gathered_;  // W~, kept unless regathering
  Tensor prefetched_;       // W~ on its way, from prefetch_weight()
  CommRequest prefetch_;
  Tensor weight_grad_, bias_grad_;
};

}  // namespace tplab::tp3d
