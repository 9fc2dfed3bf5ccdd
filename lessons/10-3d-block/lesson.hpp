/// @file
/// Lesson 10: the 3D block. The role swap of a linear pair and the backward of a 3D linear,
/// the functions the exercise fills in.
#pragma once

#include "device/device.hpp"
#include "grid/grid_3d.hpp"
#include "tp3d/linear_roles.hpp"

namespace tplab::lessons::block_3d {

/// The gradients of one 3D linear on this rank.
struct LinearGradients {
  Tensor dx;  ///< [m/q^2, in/q]: the input's gradient, in the layout the linear read X in
  Tensor dw;  ///< [in/q^2, out/q]: the weight shard's gradient
  Tensor db;  ///< [out/q]: the bias shard's gradient
};

/// The roles of the linear that reads the output of a linear in `roles`.
tp3d::LinearRoles next_roles(tp3d::LinearRoles roles);

/// The backward of Y = X W + b on the cube, for a linear in `roles`: from this rank's dy
/// [m/q^2, out/q] (cut like its Y), the gathered input x_gathered = X~ [m/q, in/q] and the
/// gathered weight w_gathered = W~ [in/q, out/q] kept from forward.
LinearGradients linear_3d_backward(Device& device, const Grid3D& grid, tp3d::LinearRoles roles,
                                   const Tensor& dy, const Tensor& x_gathered,
                                   const Tensor& w_gathered);

}  // namespace tplab::lessons::block_3d
