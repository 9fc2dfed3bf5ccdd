/// @file
/// LinearRoles: which axis of the cube plays input and which plays output for one 3D linear.
#pragma once

#include "grid/grid_3d.hpp"

namespace tplab::tp3d {

/// The axis whose group all-gathers a linear's input X (and reduce-scatters dX), and the axis
/// whose group reduce-scatters its output Y (and all-gathers dY). The weight axis always
/// gathers W.
///
/// A linear reads X with its tokens cut along its input axis and its features along its
/// output axis, and writes Y the other way round: tokens cut along the output axis, features
/// along the input axis (see Linear3D). So the next linear must swap the roles to read that Y,
/// and after two linears the layout is back where it started. This is why the block pairs its
/// linears (Q/K/V with the output projection, fc1 with fc2) and why its residual additions
/// need no communication.
struct LinearRoles {
  Axis3D input = Axis3D::input;    ///< the axis along which X is gathered (and dX scattered)
  Axis3D output = Axis3D::output;  ///< the axis along which Y is scattered (and dY gathered)

  /// The roles of the linear that reads this one's output.
  constexpr LinearRoles swapped() const { return {output, input}; }
};

/// Q, K, V and fc1 read the block's layout: every axis plays the part it is named for.
inline constexpr LinearRoles kReadsBlockLayout{Axis3D::input, Axis3D::output};

/// The output projection and fc2 read what Q/K/V and fc1 wrote, and write the block's layout.
inline constexpr LinearRoles kWritesBlockLayout = kReadsBlockLayout.swapped();

}  // namespace tplab::tp3d
