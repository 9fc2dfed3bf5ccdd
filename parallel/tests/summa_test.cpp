/// @file
/// SUMMA on a q x q mesh (1, 4 and 9 ranks) against the plain product of the whole matrices:
/// Y = X W, dX = dY W^T and dW = X^T dY, each rank's block exact, with blocking and with started
/// broadcasts.
#include "tp2d/summa.hpp"

#include <gtest/gtest.h>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "layer_test_matrix.hpp"

namespace tplab::tp2d {
namespace {

using namespace testing_layers;  // the exact matrices, their blocks and the comparison

// Divisible by q = 1, 2 and 3; the inner extent differs from the outer ones, so that a
// product of the wrong blocks cannot have the right shape by chance.
constexpr std::int64_t kTokens = 6, kIn = 12, kOut = 6;

/// The parameter: the policy overlaps (started broadcasts) or not.
class SummaTest : public testing::TestWithParam<bool> {
 protected:
  SummaTest() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}

  void SetUp() override {
    if (square_root(world->size()) == 0) GTEST_SKIP() << "SUMMA needs a square number of ranks";
    grid = std::make_unique<Grid2D>(Grid2D::build(*world));
  }

  ExecutionPolicy policy() const { return {.overlap = GetParam()}; }

  /// Block (i, j) of m, this rank's, with m cut into q x q blocks.
  Matrix mine(const Matrix& m) const {
    const std::int64_t q = grid->q;
    return block(m, grid->i * m.rows / q, m.rows / q, grid->j * m.cols / q, m.cols / q);
  }

  CpuDevice device;
  std::unique_ptr<Comm> world;
  std::unique_ptr<Grid2D> grid;
  const Matrix x = integers(kTokens, kIn, 1);
  const Matrix w = integers(kIn, kOut, 2);
  const Matrix dy = integers(kTokens, kOut, 3);
};

TEST_P(SummaTest, ForwardIsThePlainProduct) {
  const Tensor y =
      summa_forward(device, *grid, upload(device, mine(x)), upload(device, mine(w)), policy());
  // [m, in] x [in, out] -> [m, out]
  expect_exact(download(device, y), mine(product(x, false, w, false)), "Y = X W");
}

TEST_P(SummaTest, InputGradientIsThePlainProductWithWTransposed) {
  const Tensor dx = summa_input_gradient(device, *grid, upload(device, mine(dy)),
                                         upload(device, mine(w)), policy());
  // [m, out] x [in, out]^T -> [m, in]
  expect_exact(download(device, dx), mine(product(dy, false, w, true)), "dX = dY W^T");
}

TEST_P(SummaTest, WeightGradientIsThePlainProductWithXTransposed) {
  const Tensor dw = summa_weight_gradient(device, *grid, upload(device, mine(x)),
                                          upload(device, mine(dy)), policy());
  // [m, in]^T x [m, out] -> [in, out]
  expect_exact(download(device, dw), mine(product(x, true, dy, false)), "dW = X^T dY");
}

INSTANTIATE_TEST_SUITE_P(BlockingAndStarted, SummaTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "started" : "blocking";
                         });

}  // namespace
}  // namespace tplab::tp2d
