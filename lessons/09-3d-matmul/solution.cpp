// Lesson 09, the answer: the 3D matmul written out, two all-gathers, one local product and
// one reduce-scatter.
#include "lesson.hpp"

namespace tplab::lessons::matmul_3d {

// The library's version: parallel/tp3d/input_gather_3d.cpp, InputGather3D::forward (line 20,
// the gather of X~), then parallel/tp3d/linear_3d.cpp, Linear3D::forward (line 34, the gather
// of W~, the product, the reduce-scatter and the bias), in the roles kReadsBlockLayout.
Tensor matmul_3d(Device& device, const Grid3D& grid, const Tensor& x_shard, const Tensor& w_shard) {
  const DType dtype = x_shard.dtype();
  // X~: the q token blocks of the input group, stacked in its order
  Tensor x_gathered = device.empty({x_shard.rows() * grid.input->size(), x_shard.cols()}, dtype);
  grid.input->all_gather(x_shard, x_gathered);  // [m/q^2, in/q] -> [m/q, in/q]
  // W~: the q in-feature blocks of the weight group
  Tensor w_gathered = device.empty({w_shard.rows() * grid.weight->size(), w_shard.cols()}, dtype);
  grid.weight->all_gather(w_shard, w_gathered);  // [in/q^2, out/q] -> [in/q, out/q]
  Tensor partial = device.empty({x_gathered.rows(), w_gathered.cols()}, dtype);
  // [m/q, in/q] x [in/q, out/q] -> [m/q, out/q]   (a partial sum: this rank's in-features only)
  device.matmul(x_gathered, Transpose::no, w_gathered, Transpose::no, partial);
  Tensor y = device.empty({partial.rows() / grid.output->size(), partial.cols()}, dtype);
  grid.output->reduce_scatter(partial, y);  // summed over k, this rank's rows: [m/q^2, out/q]
  return y;
}

double matmul_3d_bus_elements(std::int64_t m, std::int64_t in, std::int64_t out, int q) {
  // N = m in / q^2 (X~), in out / q^2 (W~), m out / q^2 (P), each sent (q-1)/q times.
  const double n = static_cast<double>(m * in + in * out + m * out) / (q * q);
  return (q - 1.0) / q * n;
}

}  // namespace tplab::lessons::matmul_3d
