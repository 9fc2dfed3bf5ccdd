/// @file
/// SUMMA on a q x q mesh: the matrix product of 2D tensor parallelism and its two backward forms
/// (van de Geijn and Watts 1997; Xu et al. 2021, "Optimus", arXiv 2104.05343).
#pragma once

#include "device/device.hpp"
#include "grid/grid_2d.hpp"
#include "scheme/execution_policy.hpp"

namespace tplab::tp2d {

/// Y = X W with every matrix cut into q x q blocks: rank (i, j) holds X(i,j), W(i,j), Y(i,j).
///
///   Y(i,j) = sum_t X(i,t) W(t,j)
///
/// Step t: the owner of X(i,t) (column t of row i) broadcasts it along row i, the owner of
/// W(t,j) (row t of column j) broadcasts it along column j, and every rank adds one product.
/// x [m/q, in/q], w [in/q, out/q] -> [m/q, out/q]. 2q broadcasts per rank.
///
/// With `policy.overlap`, each function here starts step t+1's broadcasts before step t's
/// product and waits for them only at step t+1; the products run in the same order either way.
Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w,
                     ExecutionPolicy policy);
/// SUMMA with blocking broadcasts: lesson 06's form, the same bits.
Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w);

/// dX = dY W^T:  dX(i,t) = sum_j dY(i,j) W(t,j)^T.
///
/// Step t: W(t,j) is broadcast along column j; each rank of row i forms its partial product
/// and the partials are reduced along row i to the owner of dX(i,t), rank (i, t).
/// dy [m/q, out/q], w [in/q, out/q] -> dx [m/q, in/q]. q broadcasts and q reduces per rank.
Tensor summa_input_gradient(Device& device, Grid2D& grid, const Tensor& dy, const Tensor& w,
                            ExecutionPolicy policy = {});

/// dW = X^T dY:  dW(t,j) = sum_i X(i,t)^T dY(i,j).
///
/// Step t: X(i,t) is broadcast along row i; each rank of column j forms its partial product
/// and the partials are reduced along column j to the owner of dW(t,j), rank (t, j).
/// x [m/q, in/q], dy [m/q, out/q] -> dw [in/q, out/q]. q broadcasts and q reduces per rank.
Tensor summa_weight_gradient(Device& device, Grid2D& grid, const Tensor& x, const Tensor& dy,
                             ExecutionPolicy policy = {});

}  // namespace tplab::tp2d
