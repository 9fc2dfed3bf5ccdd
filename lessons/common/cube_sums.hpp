/// @file
/// Which group of the 3D cube a sum was taken over. A reduce-scatter over the wrong group
/// leaves a block of the right shape and the wrong values ("got 9, reference 8"); with integer
/// inputs every candidate sum is exact, so the check can compute what each group would have
/// given and name the one the result matches: "this is the sum over the J group (rank 0's:
/// ranks 0, 2); the placement needs the sum over the K group (rank 0's: ranks 0, 4)".
///
/// The axes carry lesson 09's letters: I for the input group (ranks that differ only in i),
/// J for the weight group (only in j), K for the output group (only in k).
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "grid/grid_3d.hpp"
#include "lessons/common/lesson.hpp"
#include "tp3d/linear_roles.hpp"

namespace tplab::lessons {

/// The axes of the cube in the order a diagnosis tries them.
inline constexpr std::array<Axis3D, 3> kCubeAxes{Axis3D::input, Axis3D::weight, Axis3D::output};

/// The letter lessons 09 and 10 give the group along `axis`: I, J or K.
inline std::string axis_letter(Axis3D axis) {
  switch (axis) {
    case Axis3D::input:
      return "I";
    case Axis3D::weight:
      return "J";
    case Axis3D::output:
      return "K";
  }
  return "?";
}

/// The coordinate of `c` along `axis`: i, j or k.
inline int coordinate_along(const CubeCoordinates& c, Axis3D axis) {
  return axis == Axis3D::input ? c.i : axis == Axis3D::weight ? c.j : c.k;
}

/// The world ranks of the group along `axis` that `rank` belongs to, in the group's order.
inline std::vector<int> cube_group(int rank, int q, Axis3D axis) {
  const CubeCoordinates c = cube_coordinates(rank, q);
  std::vector<int> ranks;
  for (int along = 0; along < q; ++along) {
    CubeCoordinates other = c;
    (axis == Axis3D::input ? other.i : axis == Axis3D::weight ? other.j : other.k) = along;
    ranks.push_back(other.i + q * (other.j + q * other.k));
  }
  return ranks;
}

/// Rows [row0, row0 + rows) and columns [col0, col0 + cols) of the matrix `a`.
inline HostArray matrix_block(const HostArray& a, std::int64_t row0, std::int64_t rows,
                              std::int64_t col0, std::int64_t cols) {
  const std::int64_t width = a.extents.at(1);
  HostArray block{{rows, cols}, {}};
  block.values.reserve(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = row0; r < row0 + rows; ++r) {
    for (std::int64_t c = col0; c < col0 + cols; ++c) {
      block.values.push_back(a.values.at(static_cast<std::size_t>(r * width + c)));
    }
  }
  return block;
}

/// What a reduce-scatter over the group along `axis` leaves on `rank`: the sum of the
/// `partials` (one per world rank, all of one shape [rows, cols]) over rank's group, cut into
/// q blocks of rows, of which rank keeps the one at its own place in the group.
inline HostArray reduce_scatter_over(const std::vector<HostArray>& partials, int q, Axis3D axis,
                                     int rank) {
  const HostArray& mine = partials.at(static_cast<std::size_t>(rank));
  HostArray sum{mine.extents, std::vector<double>(mine.values.size(), 0.0)};
  for (int member : cube_group(rank, q, axis)) {
    const HostArray& partial = partials.at(static_cast<std::size_t>(member));
    check(partial.extents == mine.extents, "reduce_scatter_over: partials differ in shape");
    for (std::size_t e = 0; e < sum.values.size(); ++e) sum.values[e] += partial.values[e];
  }
  const std::int64_t rows = sum.extents.at(0) / q;
  const int place = coordinate_along(cube_coordinates(rank, q), axis);
  return matrix_block(sum, place * rows, rows, 0, sum.extents.at(1));
}

/// The block (row block `row`, column block `col`) of the matrix `a` cut into q x q blocks.
inline HostArray block_at(const HostArray& a, int q, int row, int col) {
  const std::int64_t rows = a.extents.at(0) / q, cols = a.extents.at(1) / q;
  return matrix_block(a, row * rows, rows, col * cols, cols);
}

/// The partial products of a 3D linear (tp3d::Linear3D) on every rank, before the
/// reduce-scatter that sums each over its group: indexed by world rank.
struct LinearPartials {
  std::vector<HostArray> y;   ///< P = X~ W~ [m/q, out/q], summed over the output axis
  std::vector<HostArray> dx;  ///< dX~ = dY~ W~^T [m/q, in/q], summed over the input axis
  std::vector<HostArray> dw;  ///< dW~ = X~^T dY~ [in/q, out/q], summed over the weight axis
};

/// The gathered operands of rank (a, t, c) of a linear in `roles` (a, t, c its coordinates
/// along the input, weight and output axes): X~ = X(token block t, in block c), W~ = W(in
/// block c, out block a), and dY~ = dY(token block t, out block a), each a block of q x q.
struct GatheredBlocks {
  /// The token block t, the input-feature block c and the output-feature block a.
  ///@{
  int token, in, out;
  ///@}
};

/// The blocks rank `rank` of a q x q x q cube gathers for a linear in `roles`.
inline GatheredBlocks gathered_blocks(int rank, int q, tp3d::LinearRoles roles) {
  const CubeCoordinates at = cube_coordinates(rank, q);
  return {at.j, coordinate_along(at, roles.output), coordinate_along(at, roles.input)};
}

/// Forward's P on every rank, for the global X [m, in] and W [in, out].
inline LinearPartials linear_3d_forward_partials(const HostArray& x, const HostArray& w,
                                                 tp3d::LinearRoles roles, int q) {
  LinearPartials partials;
  for (int r = 0; r < q * q * q; ++r) {
    const GatheredBlocks b = gathered_blocks(r, q, roles);
    // X~ [m/q, in/q] x W~ [in/q, out/q] -> [m/q, out/q]
    partials.y.push_back(
        reference_matmul(block_at(x, q, b.token, b.in), block_at(w, q, b.in, b.out)));
  }
  return partials;
}

/// Backward's dX~ and dW~ on every rank, for the global X, W and output gradient dY [m, out].
inline LinearPartials linear_3d_backward_partials(const HostArray& x, const HostArray& w,
                                                  const HostArray& dy, tp3d::LinearRoles roles,
                                                  int q) {
  LinearPartials partials;
  for (int r = 0; r < q * q * q; ++r) {
    const GatheredBlocks b = gathered_blocks(r, q, roles);
    const HostArray x_gathered = block_at(x, q, b.token, b.in);     // X~ [m/q, in/q]
    const HostArray w_gathered = block_at(w, q, b.in, b.out);       // W~ [in/q, out/q]
    const HostArray dy_gathered = block_at(dy, q, b.token, b.out);  // dY~ [m/q, out/q]
    // [m/q, out/q] x [out/q, in/q] -> [m/q, in/q]
    partials.dx.push_back(reference_matmul(dy_gathered, reference_transpose(w_gathered)));
    // [in/q, m/q] x [m/q, out/q] -> [in/q, out/q]
    partials.dw.push_back(reference_matmul(reference_transpose(x_gathered), dy_gathered));
  }
  return partials;
}

/// "this is the sum over the J group (rank 0's: ranks 0, 2); the placement needs the sum over
/// the K group (rank 0's: ranks 0, 4)".
inline std::string wrong_group_text(Axis3D summed, Axis3D needed, int q) {
  const auto group = [q](Axis3D axis) {
    return fmt::format("the {} group (rank 0's: ranks {})", axis_letter(axis),
                       fmt::join(cube_group(0, q, axis), ", "));
  };
  return fmt::format("this is the sum over {}; the placement needs the sum over {}", group(summed),
                     group(needed));
}

/// Whether the reduce-scatter over `axis` of the `partials` (one per world rank) leaves on
/// `rank` exactly the values `got` holds there.
inline bool is_sum_over(Axis3D axis, std::span<const double> got,
                        const std::vector<HostArray>& partials, int q, int rank) {
  const HostArray sum = reduce_scatter_over(partials, q, axis, rank);
  return sum.values.size() == got.size() &&
         std::equal(sum.values.begin(), sum.values.end(), got.begin());
}

/// The group, other than `needed`, whose reduce-scatter of the `partials` (one per world rank)
/// gives what every rank holds in `got`, as wrong_group_text says it; empty when `got` is the
/// sum over `needed`, when no group matches, or on a cube of one rank. Collective.
inline std::string diagnose_group_sum(Lesson& lesson, std::span<const double> got,
                                      const std::vector<HostArray>& partials, Axis3D needed) {
  const int q = cube_side(lesson.size());
  if (q < 2) return {};
  const auto everywhere = [&](Axis3D axis) {
    return lesson.on_every_rank(is_sum_over(axis, got, partials, q, lesson.rank()));
  };
  if (everywhere(needed)) return {};
  for (Axis3D axis : kCubeAxes) {
    if (axis != needed && everywhere(axis)) return wrong_group_text(axis, needed, q);
  }
  return {};
}

}  // namespace tplab::lessons
