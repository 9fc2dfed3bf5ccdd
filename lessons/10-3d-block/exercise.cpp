// Lesson 10 exercise: the role swap of a 3D linear pair and the backward of a 3D linear. Fill
// in the TODO blocks, then run ./tplab lesson check 10. README.md explains; ./tplab lesson
// hint 10 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::block_3d {

tp3d::LinearRoles next_roles(tp3d::LinearRoles roles) {
  // TODO: the first linear gathers X along roles.input and scatters Y along roles.output. Which
  //       axis must the second linear gather its X (the first one's Y) along, and which
  //       scatter along?
  (void)roles;
  TPLAB_TODO();
}

LinearGradients linear_3d_backward(Device& device, const Grid3D& grid, tp3d::LinearRoles roles,
                                   const Tensor& dy, const Tensor& x_gathered,
                                   const Tensor& w_gathered) {
  // TODO: the groups: grid.axis(roles.output) undoes forward's reduce-scatter of Y,
  //       grid.axis(roles.input) undoes forward's all-gather of X, grid.weight that of W;
  //       grid.plane_with_weight(roles.output) holds every token of one bias block.
  //   1. dY~ = all_gather of dy over the output group:  [m/q^2, out/q] -> [m/q, out/q]
  //   2. dX~ = dY~ W~^T:  [m/q, out/q] x [in/q, out/q]^T -> [m/q, in/q]  (partial: out block)
  //      dX  = reduce_scatter of dX~ over the input group:  [m/q, in/q] -> [m/q^2, in/q]
  //   3. dW~ = X~^T dY~:  [m/q, in/q]^T x [m/q, out/q] -> [in/q, out/q]  (partial: tokens)
  //      dW  = reduce_scatter of dW~ over the weight group: [in/q, out/q] -> [in/q^2, out/q]
  //   4. db  = column sums of dy [out/q], all-reduced over the output x weight plane
  (void)device;
  (void)grid;
  (void)roles;
  (void)dy;
  (void)x_gathered;
  (void)w_gathered;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::block_3d
