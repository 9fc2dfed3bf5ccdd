/// @file
/// Lesson 09: the 3D matmul on a q x q x q cube. The functions the exercise fills in.
#pragma once

#include <cstdint>

#include "device/device.hpp"
#include "grid/grid_3d.hpp"

namespace tplab::lessons::matmul_3d {

/// Y = X W on the cube, for rank (i, j, k) of `grid`, which holds
///   X[m/q^2, in/q]    token block j*q + i, in-feature block k
///   W[in/q^2, out/q]  in-feature block k*q + j, out-feature block i
/// and returns
///   Y[m/q^2, out/q]   token block j*q + k, out-feature block i
/// by an all-gather of X over the input group, an all-gather of W over the weight group, one
/// local product and a reduce-scatter over the output group.
Tensor matmul_3d(Device& device, const Grid3D& grid, const Tensor& x_shard, const Tensor& w_shard);

/// Elements one rank sends over its links in matmul_3d (N x bus factor of each ring
/// collective, summed), for X[m, in] and W[in, out] on a cube of side q.
double matmul_3d_bus_elements(std::int64_t m, std::int64_t in, std::int64_t out, int q);

}  // namespace tplab::lessons::matmul_3d
