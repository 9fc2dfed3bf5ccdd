// Lesson 10, the answer: the role swap of a linear pair, and the backward of a 3D linear
// written out, followed by the reduce-scatter of dX~.
#include "lesson.hpp"

namespace tplab::lessons::block_3d {

// The library's version: parallel/tp3d/linear_roles.hpp, LinearRoles::swapped (line 24).
tp3d::LinearRoles next_roles(tp3d::LinearRoles roles) {
  // This linear wrote Y with its tokens cut along its output axis: the next one gathers its
  // input along that axis, and scatters its own output along this one's input axis.
  return {.input = roles.output, .output = roles.input};
}

// The library's version: parallel/tp3d/linear_3d.cpp, Linear3D::backward (line 55), then
// parallel/tp3d/input_gather_3d.cpp, InputGather3D::backward (line 30) for dX.
LinearGradients linear_3d_backward(Device& device, const Grid3D& grid, tp3d::LinearRoles roles,
                                   const Tensor& dy, const Tensor& x_gathered,
                                   const Tensor& w_gathered) {
  Comm& output = grid.axis(roles.output);
  Comm& input = grid.axis(roles.input);
  Tensor dy_gathered = device.empty({dy.rows() * output.size(), dy.cols()}, dy.dtype());
  output.all_gather(dy, dy_gathered);

  Tensor dx_gathered = device.empty(x_gathered.extents(), dy.dtype());
  // [m/q, out/q] x [in/q, out/q]^T -> [m/q, in/q]   (a partial sum: this rank's out-features)
  device.matmul(dy_gathered, Transpose::no, w_gathered, Transpose::yes, dx_gathered);
  LinearGradients g;
  g.dx = device.empty({dx_gathered.rows() / input.size(), dx_gathered.cols()}, dy.dtype());
  input.reduce_scatter(dx_gathered, g.dx);

  Tensor dw_gathered = device.empty(w_gathered.extents(), dy.dtype());
  // [m/q, in/q]^T x [m/q, out/q] -> [in/q, out/q]   (a partial sum: this rank's tokens)
  device.matmul(x_gathered, Transpose::yes, dy_gathered, Transpose::no, dw_gathered);
  g.dw = device.empty({w_gathered.rows() / grid.weight->size(), w_gathered.cols()}, dy.dtype());
  grid.weight->reduce_scatter(dw_gathered, g.dw);

  g.db = device.empty({dy.cols()}, dy.dtype());
  device.column_sum(dy, g.db);
  grid.plane_with_weight(roles.output).all_reduce(g.db);
  return g;
}

}  // namespace tplab::lessons::block_3d
