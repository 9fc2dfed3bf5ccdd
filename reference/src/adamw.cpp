/// @file
/// The reference's AdamW step, in torch.optim.AdamW's order of operations.
#include "tplab/reference/adamw.hpp"

#include <cmath>

namespace tplab::reference {

void adamw_step(Eigen::Ref<Eigen::ArrayXd> p, const Eigen::Ref<const Eigen::ArrayXd>& g,
                AdamWMoments& moments, const AdamW& config, std::int64_t t, bool decay) {
  if (moments.m.size() != p.size()) {
    moments.m = Eigen::ArrayXd::Zero(p.size());
    moments.v = Eigen::ArrayXd::Zero(p.size());
  }
  if (decay) p *= 1.0 - config.learning_rate * config.weight_decay;
  moments.m = config.beta1 * moments.m + (1.0 - config.beta1) * g;
  moments.v = config.beta2 * moments.v + (1.0 - config.beta2) * g.square();
  const double correction1 = 1.0 - std::pow(config.beta1, static_cast<double>(t));
  const double correction2 = 1.0 - std::pow(config.beta2, static_cast<double>(t));
  const Eigen::ArrayXd denominator = moments.v.sqrt() / std::sqrt(correction2) + config.eps;
  p -= (config.learning_rate / correction1) * moments.m / denominator;
}

}  // namespace tplab::reference
