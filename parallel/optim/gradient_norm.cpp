/// @file
/// The global gradient norm: who counts what, one all-gather, and the clip.
#include "optim/gradient_norm.hpp"

#include <cmath>

#include "device/cpu_device.hpp"

namespace tplab {

bool counts_block(int rank, const TensorPlacement& placement) {
  const auto mine = static_cast<std::size_t>(rank);
  for (std::size_t lower = 0; lower < mine; ++lower) {
    if (placement.blocks[lower] == placement.blocks[mine]) return false;
  }
  return true;
}

TensorMap gradients_counted_by(int rank, const TensorMap& gradients,
                               const std::vector<TensorPlacement>& placements) {
  TensorMap counted;
  for (const auto& [name, grad] : gradients) {
    // "d_wq" is the gradient of "wq", placed as it
    if (counts_block(rank, find_placement(placements, std::string_view(name).substr(2)))) {
      counted.emplace(name, grad);
    }
  }
  return counted;
}

double global_gradient_norm(Comm& world, Device& device, const TensorMap& counted) {
  CpuDevice host;
  Tensor mine = host.empty({1}, DType::f64);
  double sum = 0;
  for (const auto& [name, grad] : counted) sum += device.sum_of_squares(grad);
  mine.data_as<double>()[0] = sum;
  Tensor all = host.empty({world.size()}, DType::f64);
  world.all_gather(mine, all);
  double total = 0;
  for (int r = 0; r < world.size(); ++r) total += all.data_as<double>()[r];
  return std::sqrt(total);
}

double clip_coefficient(double norm, double max_norm) {
  if (std::isnan(norm)) return norm;  // a NaN gradient stays NaN, as in PyTorch
  const double coefficient = max_norm / (norm + 1e-6);
  return coefficient < 1.0 ? coefficient : 1.0;
}

void scale_gradients(Device& device, const TensorMap& gradients, double coefficient) {
  if (coefficient == 1.0) return;
  for (const auto& [name, grad] : gradients) {
    Tensor g = grad;  // a handle onto the model's gradient
    device.scale(g, coefficient);
  }
}

}  // namespace tplab
