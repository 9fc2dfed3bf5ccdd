// Lesson 09, the library's answer: InputGather3D and Linear3D (with a zero bias) in the roles
// of the linears that read the block's layout, which gather W, multiply and reduce-scatter Y.
#include "lesson.hpp"
#include "tp3d/input_gather_3d.hpp"
#include "tp3d/linear_3d.hpp"

namespace tplab::lessons::matmul_3d {

Tensor matmul_3d(Device& device, const Grid3D& grid, const Tensor& x_shard, const Tensor& w_shard) {
  tp3d::InputGather3D input(device, grid, tp3d::kReadsBlockLayout, /*regather=*/false);
  tp3d::Linear3D linear(device, grid, tp3d::kReadsBlockLayout, w_shard,
                        device.zeros({w_shard.cols()}, x_shard.dtype()), /*regather=*/false);
  // [m/q^2, in/q] -> X~ [m/q, in/q]; X~ [m/q, in/q] x W~ [in/q, out/q] -> [m/q^2, out/q]
  return linear.forward(input.forward(x_shard));
}

double matmul_3d_bus_elements(std::int64_t m, std::int64_t in, std::int64_t out, int q) {
  // N = m in / q^2 (X~), in out / q^2 (W~), m out / q^2 (P), each sent (q-1)/q times.
  const double n = static_cast<double>(m * in + in * out + m * out) / (q * q);
  return (q - 1.0) / q * n;
}

}  // namespace tplab::lessons::matmul_3d
