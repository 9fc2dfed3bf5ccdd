/// @file
/// Linear3D with InputGather3D on a q x q x q cube (1 and 8 ranks), in both role assignments
/// of linear_roles.hpp, against the unsplit Y = X W + b on one rank: Y, dX, dW and db, each
/// rank's block exact.
#include "tp3d/linear_3d.hpp"

#include <gtest/gtest.h>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "layer_test_matrix.hpp"
#include "tp3d/input_gather_3d.hpp"
#include "tp3d/linear_roles.hpp"

namespace tplab::tp3d {
namespace {

using namespace testing_layers;  // the exact matrices, their blocks and the comparison

// Tokens and in-features divisible by q^2, out-features by q, for q = 1 and 2; all three
// differ, so that a product of the wrong blocks cannot have the right shape by chance.
constexpr std::int64_t kTokens = 8, kIn = 12, kOut = 6;

/// The parameter: the linear reads the block's layout (kReadsBlockLayout) or writes it
/// (kWritesBlockLayout, the roles swapped).
class Linear3DTest : public testing::TestWithParam<bool> {
 protected:
  Linear3DTest() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}

  void SetUp() override {
    if (cube_side(world->size()) == 0) GTEST_SKIP() << "3D needs a cube number of ranks";
    grid = std::make_unique<Grid3D>(Grid3D::build(*world));
  }

  LinearRoles roles() const { return GetParam() ? kWritesBlockLayout : kReadsBlockLayout; }

  /// This rank's coordinate along `axis`.
  std::int64_t along(Axis3D axis) const {
    const CubeCoordinates& c = grid->coordinates;
    return axis == Axis3D::input ? c.i : axis == Axis3D::weight ? c.j : c.k;
  }

  /// Row block `row` of m cut into `row_parts`, column block `col` of `col_parts`.
  static Matrix blocked(const Matrix& m, std::int64_t row, std::int64_t row_parts, std::int64_t col,
                        std::int64_t col_parts) {
    return block(m, row * m.rows / row_parts, m.rows / row_parts, col * m.cols / col_parts,
                 m.cols / col_parts);
  }

  CpuDevice device;
  std::unique_ptr<Comm> world;
  std::unique_ptr<Grid3D> grid;
};

TEST_P(Linear3DTest, ForwardAndBackwardMatchTheUnsplitLinear) {
  const std::int64_t q = grid->q;
  // a, t, c: the coordinates along the roles' input, weight and output axes (Linear3D's notation)
  const std::int64_t a = along(roles().input), t = along(Axis3D::weight), c = along(roles().output);
  const Matrix x = integers(kTokens, kIn, 1), w = integers(kIn, kOut, 2);
  const Matrix b = integers(1, kOut, 3), dy = integers(kTokens, kOut, 4);
  // X: token block t q + a, in block c; W: in block c q + t, out block a; Y and dY: token
  // block t q + c, out block a
  const auto x_block = [&](const Matrix& m) { return blocked(m, t * q + a, q * q, c, q); };
  const auto w_block = [&](const Matrix& m) { return blocked(m, c * q + t, q * q, a, q); };
  const auto y_block = [&](const Matrix& m) { return blocked(m, t * q + c, q * q, a, q); };

  InputGather3D input(device, *grid, roles());
  Linear3D linear(device, *grid, roles(), upload(device, w_block(w)),
                  upload(device, blocked(b, 0, 1, a, q), true));
  const Tensor y = linear.forward(input.forward(upload(device, x_block(x))));
  const Tensor dx =
      input.backward(linear.backward(upload(device, y_block(dy)), input.gathered_for_backward()));

  // [m, in] x [in, out] -> [m, out]
  expect_exact(download(device, y), y_block(plus_bias(product(x, false, w, false), b)), "Y");
  // [m, out] x [in, out]^T -> [m, in]
  expect_exact(download(device, dx), x_block(product(dy, false, w, true)), "dX");
  // [m, in]^T x [m, out] -> [in, out]
  expect_exact(download(device, linear.weight_grad()), w_block(product(x, true, dy, false)), "dW");
  expect_exact(download(device, linear.bias_grad()), blocked(column_sums(dy), 0, 1, a, q),
               "db, summed over every token");
}

INSTANTIATE_TEST_SUITE_P(BothRoleAssignments, Linear3DTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "writes_block_layout" : "reads_block_layout";
                         });

}  // namespace
}  // namespace tplab::tp3d
