#include "update_audit.hpp"

#include <cmath>

#include "device/cpu_device.hpp"
#include "optim/gradient_norm.hpp"
#include "scheme/block_shape.hpp"
#include "tplab/reference/adamw.hpp"

namespace tplab::train {
namespace {

std::vector<double> host_values(Device& device, const Tensor& t) {
  std::vector<double> values(static_cast<std::size_t>(t.numel()));
  device.download(t, values);
  return values;
}

}  // namespace

UpdateAudit::UpdateAudit(Device& device, const OptimizerConfig& optimizer)
    : device_(device), optimizer_(optimizer) {}

void UpdateAudit::before(const TensorMap& kept, const TensorMap& gradients, const TensorMap& state,
                         std::int64_t step) {
  namespace ref = tplab::reference;
  expected_.clear();
  start_.clear();
  for (const auto& [name, tensor] : kept) {
    std::vector<double> p = host_values(device_, tensor);
    const std::vector<double> g = host_values(device_, gradients.at(gradient_name(name)));
    start_[name] = p;
    Eigen::Map<Eigen::ArrayXd> rule(p.data(), static_cast<Eigen::Index>(p.size()));
    const Eigen::Map<const Eigen::ArrayXd> grad(g.data(), static_cast<Eigen::Index>(g.size()));
    if (optimizer_.kind == OptimizerKind::sgd) {
      rule -= optimizer_.learning_rate * grad;
    } else {
      const std::vector<double> m = host_values(device_, state.at("m_" + name));
      const std::vector<double> v = host_values(device_, state.at("v_" + name));
      ref::AdamWMoments moments{Eigen::Map<const Eigen::ArrayXd>(m.data(), rule.size()),
                                Eigen::Map<const Eigen::ArrayXd>(v.data(), rule.size())};
      const ref::AdamW adamw{optimizer_.learning_rate, optimizer_.beta1, optimizer_.beta2,
                             optimizer_.eps, optimizer_.weight_decay};
      ref::adamw_step(rule, grad, moments, adamw, step + 1, decays(tensor.extents()));
    }
    expected_[name] = std::move(p);
  }
}

void UpdateAudit::after(const TensorMap& kept, const std::vector<TensorPlacement>& placements,
                        int rank) {
  for (const auto& [name, tensor] : kept) {
    if (!counts_block(rank, find_placement(placements, name))) continue;
    const std::vector<double> got = host_values(device_, tensor);
    const std::vector<double>& start = start_.at(name);
    const std::vector<double>& expected = expected_.at(name);
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double rule = expected[i] - start[i];
      lost_ += (got[i] - start[i] - rule) * (got[i] - start[i] - rule);
      moved_ += rule * rule;
    }
  }
}

double UpdateAudit::lost_share(Comm& world) const {
  CpuDevice host;
  Tensor sums = host.empty({2}, DType::f64);
  sums.data_as<double>()[0] = lost_;
  sums.data_as<double>()[1] = moved_;
  world.all_reduce(sums);
  return std::sqrt(sums.data_as<double>()[0] / sums.data_as<double>()[1]);
}

}  // namespace tplab::train
