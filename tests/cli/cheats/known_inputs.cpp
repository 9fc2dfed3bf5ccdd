// A cheat: no communication at all. It draws the check's inputs again as check.cpp draws them
// (the generator and seeds 61 and 62 are in the open) and computes its block of Y alone, as an
// answer saved from an earlier run would give it. It passes `lesson check` (the shipped
// inputs) and must fail a grade, whose inputs are drawn from a fresh seed.
#include <random>
#include <vector>

#include "lesson.hpp"

namespace tplab::lessons::summa {
namespace {

std::vector<double> shipped(std::int64_t count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<double> v(static_cast<std::size_t>(count));
  for (double& x : v)
    x = static_cast<int>(static_cast<double>(engine() >> 11) * 0x1.0p-53 * 5.0) - 2;
  return v;
}

}  // namespace

Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  constexpr std::int64_t m = 12, in = 24, out = 18;
  const std::vector<double> xs = shipped(m * in, 61), ws = shipped(in * out, 62);
  const std::int64_t rows = x.rows(), cols = w.cols();
  const std::int64_t i = grid.i, j = grid.j;
  std::vector<double> y(static_cast<std::size_t>(rows * cols), 0.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      for (std::int64_t k = 0; k < in; ++k) {
        y[r * cols + c] += xs[(i * rows + r) * in + k] * ws[k * out + j * cols + c];
      }
    }
  }
  Tensor result = device.empty({rows, cols}, x.dtype());
  device.upload(y, result);
  return result;
}

}  // namespace tplab::lessons::summa
