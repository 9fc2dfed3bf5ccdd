/// @file
/// The sequence-parallel operators, GatherFromSequenceParallelRegion before a column-parallel
/// linear and ReduceScatterToSequenceParallelRegion after a row-parallel one, at 1, 2 and 4
/// ranks, against the unsplit pair on one rank: rank r holds tokens [r m/t, (r+1) m/t) of the
/// input, the output and their gradients, and every shard must be its block of the unsplit
/// result, exactly.
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
constexpr std::int64_t kTokens = 8, kHidden = 8, kFfn = 12;

class SequenceParallelTest : public testing_layers::Group1DTest {
 protected:
  const Matrix x = integers(kTokens, kHidden, 1);
};

TEST_P(SequenceParallelTest, GatherForwardIsTheWholeInputAndBackwardSumsThisRanksTokens) {
  GatherFromSequenceParallelRegion gather(device, *grid.tp, policy());
  const Tensor whole = gather.forward(upload(device, row_block(x, r, t)));
  expect_exact(download(device, whole), x, "X, gathered");
  expect_exact(download(device, gather.input_for_backward().wait()), x, "X, gathered again");
  // each rank's partial dX is (r + 1) times the same matrix: the sum is t (t + 1) / 2 times it
  const Matrix d = integers(kTokens, kHidden, 2);
  Matrix partial = d, sum = d;
  for (std::size_t e = 0; e < d.values.size(); ++e) {
    partial.values[e] *= r + 1;
    sum.values[e] *= t * (t + 1) / 2;
  }
  const Tensor dx = gather.backward(upload(device, partial)).wait();
  expect_exact(download(device, dx), row_block(sum, r, t), "dX_r, reduce-scattered");
}

// The MLP's pattern without the activation, as Mlp1D orders its steps with Mode1D's sequence
// parallelism.
TEST_P(SequenceParallelTest, ColumnThenRowMatchesTheUnsplitPair) {
  const Matrix w1 = integers(kHidden, kFfn, 3), b1 = integers(1, kFfn, 4);
  const Matrix w2 = integers(kFfn, kHidden, 5), b2 = integers(1, kHidden, 6);
  const Matrix dy = integers(kTokens, kHidden, 7);
  GatherFromSequenceParallelRegion gather(device, *grid.tp, policy());
  ColumnParallelLinear fc1(device, upload(device, column_block(w1, r, t)),
                           upload(device, column_block(b1, r, t), true));
  RowParallelLinear fc2(device, *grid.tp, upload(device, row_block(w2, r, t)),
                        upload(device, b2, true), {.sequence_parallel = true}, policy());

  const Tensor y = fc2.forward(fc1.apply(gather.forward(upload(device, row_block(x, r, t)))));
  const Tensor dh_r = fc2.backward(upload(device, row_block(dy, r, t)));
  PendingTensor input = gather.input_for_backward();
  Tensor partial = fc1.input_grad(dh_r);
  fc1.weight_grads(input.wait(), dh_r);
  const Tensor dx = gather.backward(std::move(partial)).wait();

  const Matrix h = plus_bias(product(x, false, w1, false), b1);  // [m, h] x [h, f] -> [m, f]
  const Matrix dh = product(dy, false, w2, true);                // [m, h] x [f, h]^T -> [m, f]
  expect_exact(download(device, y), row_block(plus_bias(product(h, false, w2, false), b2), r, t),
               "Y_r, this rank's tokens");
  expect_exact(download(device, dx), row_block(product(dh, false, w1, true), r, t),
               "dX_r, this rank's tokens");
  expect_exact(download(device, fc1.weight_grad()), column_block(product(x, true, dh, false), r, t),
               "dW1_r");
  expect_exact(download(device, fc1.bias_grad()), column_block(column_sums(dh), r, t), "db1_r");
  expect_exact(download(device, fc2.weight_grad()), row_block(product(h, true, dy, false), r, t),
               "dW2_r");
  expect_exact(download(device, fc2.bias_grad()), column_sums(dy), "db2, summed over every token");
}

INSTANTIATE_TEST_SUITE_P(BlockingAndStarted, SequenceParallelTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "started" : "blocking";
                         });

}  // namespace
}  // namespace tplab::tp1d
