/// @file
/// Lesson 06: SUMMA on a q x q grid. The function the exercise fills in.
#pragma once

#include "device/device.hpp"
#include "grid/grid_2d.hpp"

namespace tplab::lessons::summa {

/// Y = X W with every matrix cut into q x q blocks; rank (i, j) holds X(i,j) [m/q, in/q] and
/// W(i,j) [in/q, out/q] and returns Y(i,j) = sum_k X(i,k) W(k,j) [m/q, out/q]. At step k the
/// owner of X(i,k) broadcasts it along row i and the owner of W(k,j) along column j.
Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w);

}  // namespace tplab::lessons::summa
