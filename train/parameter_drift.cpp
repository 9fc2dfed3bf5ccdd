#include "parameter_drift.hpp"

#include <cmath>

#include "device/cpu_device.hpp"
#include "optim/gradient_norm.hpp"

namespace tplab::train {
namespace {

// bf16 with f32 masters, trained beside the f64 reference, measured on this machine (2 ranks
// of 1D unless said; 30 steps unless said). Where an update is small against bf16's spacing
// (2^-8 of the weight), an optimizer without masters loses it and ends far from the reference:
//   SGD lr 0.3:     with masters 0.0097 to 0.0149 (seeds 1-5; 2D, 3D, 1d-sp; --dp 2; --pp 2;
//                   100 and 300 steps), 0.0246 at h = 64; --no-masters 0.060 to 0.081 (seeds
//                   1-5), 0.095 at 100 steps, 0.113 at h = 64.
//   AdamW lr 0.001: with 0.027 to 0.029 (0.015 at 100 steps); --no-masters 0.315 and 0.316.
//   AdamW lr 0.003: with 0.022; --no-masters 0.148.
//   AdamW lr 0.01:  with 0.041 to 0.045 (0.045 at h = 64, 0.055 at 100 steps); --no-masters
//                   0.055 to 0.058: its updates, near lr, are some 20 times bf16's spacing at
//                   the weights' size, and bf16 loses little of them; no bound tells these apart.
// Each bound is twice the largest drift measured with masters.
constexpr double kBf16SgdDriftBound = 0.05;
constexpr double kBf16AdamWDriftBound = 0.11;

}  // namespace

double parameter_drift(Comm& world, Device& device, const TensorMap& trained,
                       const verify::HostArrays& reference, const verify::HostArrays& initial,
                       const std::vector<TensorPlacement>& placements) {
  CpuDevice host;
  Tensor sums = host.zeros({2}, DType::f64);  // sum of (theta - ref)^2, of (ref - theta_0)^2
  for (const auto& [name, shard] : trained) {
    const TensorPlacement& placement = find_placement(placements, name);
    if (!counts_block(world.rank(), placement)) continue;
    const BlockRange& block = placement.blocks[static_cast<std::size_t>(world.rank())];
    std::vector<double> got(static_cast<std::size_t>(shard.numel()));
    device.download(shard, got);
    const std::vector<double> ref = reference.at(name).block(block);
    const std::vector<double> start = initial.at(name).block(block);
    for (std::size_t i = 0; i < got.size(); ++i) {
      sums.data_as<double>()[0] += (got[i] - ref[i]) * (got[i] - ref[i]);
      sums.data_as<double>()[1] += (ref[i] - start[i]) * (ref[i] - start[i]);
    }
  }
  world.all_reduce(sums);
  return std::sqrt(sums.data_as<double>()[0] / sums.data_as<double>()[1]);
}

double parameter_drift_bound(DType dtype, OptimizerKind optimizer) {
  if (dtype != DType::bf16) return 0;
  return optimizer == OptimizerKind::sgd ? kBf16SgdDriftBound : kBf16AdamWDriftBound;
}

}  // namespace tplab::train
