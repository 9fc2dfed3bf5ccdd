/// @file
/// Megatron's column- and row-parallel linears with f (CopyToTensorParallelRegion) and g
/// (ReduceFromTensorParallelRegion), at 1, 2 and 4 ranks, against the unsplit Y = X W + b on
/// one rank: the output and every gradient (dX, each rank's dW and db), exact.
#include <gtest/gtest.h>

#include "group_1d_test.hpp"
#include "layer_test_matrix.hpp"
#include "tp1d/column_parallel_linear.hpp"
#include "tp1d/conjugate_operators.hpp"
#include "tp1d/row_parallel_linear.hpp"

namespace tplab::tp1d {
namespace {

using namespace testing_layers;  // the exact matrices, their blocks and the comparison

// Divisible by t = 1, 2 and 4.
constexpr std::int64_t kTokens = 6, kHidden = 8, kFfn = 12;

class Tp1dLinearTest : public testing_layers::Group1DTest {
 protected:
  const Matrix x = integers(kTokens, kHidden, 1);
  const Matrix w1 = integers(kHidden, kFfn, 2), b1 = integers(1, kFfn, 3);
  const Matrix w2 = integers(kFfn, kHidden, 4), b2 = integers(1, kHidden, 5);
};

TEST_P(Tp1dLinearTest, ColumnParallelAfterFMatchesTheUnsplitLinear) {
  CopyToTensorParallelRegion copy_to_tp(*grid.tp, policy());
  ColumnParallelLinear fc1(device, upload(device, column_block(w1, r, t)),
                           upload(device, column_block(b1, r, t), true));
  const Matrix dh = integers(kTokens, kFfn, 6);

  const Tensor h = fc1.apply(copy_to_tp.forward(upload(device, x)));
  const Tensor dh_r = upload(device, column_block(dh, r, t));
  fc1.weight_grads(copy_to_tp.input_for_backward().wait(), dh_r);
  const Tensor dx = copy_to_tp.backward(fc1.input_grad(dh_r)).wait();

  const Matrix h_whole = plus_bias(product(x, false, w1, false), b1);  // [m, h] x [h, f]
  expect_exact(download(device, h), column_block(h_whole, r, t), "H_r = X W1_r + b1_r");
  // [m, f] x [h, f]^T -> [m, h]: the sum over every rank's columns, whole on each
  expect_exact(download(device, dx), product(dh, false, w1, true), "dX = dH W1^T");
  expect_exact(download(device, fc1.weight_grad()), column_block(product(x, true, dh, false), r, t),
               "dW1_r");
  expect_exact(download(device, fc1.bias_grad()), column_block(column_sums(dh), r, t), "db1_r");
}

TEST_P(Tp1dLinearTest, RowParallelWithGMatchesTheUnsplitLinear) {
  RowParallelLinear fc2(device, *grid.tp, upload(device, row_block(w2, r, t)),
                        upload(device, b2, true), {}, policy());
  const Matrix hidden = integers(kTokens, kFfn, 7), dy = integers(kTokens, kHidden, 8);

  const Tensor y = fc2.forward(upload(device, column_block(hidden, r, t)));
  const Tensor dhidden = fc2.backward(upload(device, dy));

  // [m, f] x [f, h] -> [m, h], whole on every rank after g
  expect_exact(download(device, y), plus_bias(product(hidden, false, w2, false), b2),
               "Y = H W2 + b2");
  expect_exact(download(device, dhidden), column_block(product(dy, false, w2, true), r, t),
               "dH_r = dY W2_r^T");
  expect_exact(download(device, fc2.weight_grad()),
               row_block(product(hidden, true, dy, false), r, t), "dW2_r");
  expect_exact(download(device, fc2.bias_grad()), column_sums(dy), "db2");
}

// The MLP's pattern (Megatron's, without the activation): f, a column-parallel linear, a
// row-parallel linear and g, as Mlp1D orders its steps.
TEST_P(Tp1dLinearTest, ColumnThenRowMatchesTheUnsplitPair) {
  CopyToTensorParallelRegion copy_to_tp(*grid.tp, policy());
  ColumnParallelLinear fc1(device, upload(device, column_block(w1, r, t)),
                           upload(device, column_block(b1, r, t), true));
  RowParallelLinear fc2(device, *grid.tp, upload(device, row_block(w2, r, t)),
                        upload(device, b2, true), {}, policy());
  const Matrix dy = integers(kTokens, kHidden, 9);

  const Tensor y = fc2.forward(fc1.apply(copy_to_tp.forward(upload(device, x))));
  const Tensor dh_r = fc2.backward(upload(device, dy));
  PendingTensor input = copy_to_tp.input_for_backward();
  Tensor partial = fc1.input_grad(dh_r);
  fc1.weight_grads(input.wait(), dh_r);
  const Tensor dx = copy_to_tp.backward(std::move(partial)).wait();

  const Matrix h = plus_bias(product(x, false, w1, false), b1);  // [m, h] x [h, f] -> [m, f]
  const Matrix dh = product(dy, false, w2, true);                // [m, h] x [f, h]^T -> [m, f]
  expect_exact(download(device, y), plus_bias(product(h, false, w2, false), b2), "Y");
  expect_exact(download(device, dx), product(dh, false, w1, true), "dX");
  expect_exact(download(device, fc1.weight_grad()), column_block(product(x, true, dh, false), r, t),
               "dW1_r");
  expect_exact(download(device, fc1.bias_grad()), column_block(column_sums(dh), r, t), "db1_r");
  expect_exact(download(device, fc2.weight_grad()), row_block(product(h, true, dy, false), r, t),
               "dW2_r");
  expect_exact(download(device, fc2.bias_grad()), column_sums(dy), "db2");
}

INSTANTIATE_TEST_SUITE_P(BlockingAndStarted, Tp1dLinearTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "started" : "blocking";
                         });

}  // namespace
}  // namespace tplab::tp1d
