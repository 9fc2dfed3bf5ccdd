/// @file
/// The reference's AdamW (Loshchilov & Hutter 2019) and gradient norm, on whole tensors, in the
/// form torch.optim.AdamW computes them. Like the rest of reference/ it shares no code with
/// parallel/.
#pragma once

#include <Eigen/Dense>
#include <cstdint>

namespace tplab::reference {

/// AdamW's hyper-parameters.
struct AdamW {
  double learning_rate = 0;  ///< lr
  double beta1 = 0;          ///< decay of m
  double beta2 = 0;          ///< decay of v
  double eps = 0;            ///< beside sqrt(v) / sqrt(1 - beta2^t)
  double weight_decay = 0;   ///< decoupled, for the tensors that decay
};

/// One tensor's moments, as long as its parameter, zero at the start.
struct AdamWMoments {
  Eigen::ArrayXd m;  ///< first moment
  Eigen::ArrayXd v;  ///< second moment
};

/// Step t (from 1) of AdamW on parameter p with gradient g, both flattened:
///   p *= 1 - lr wd                                   (when `decay`)
///   m = beta1 m + (1 - beta1) g,  v = beta2 v + (1 - beta2) g^2
///   p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
void adamw_step(Eigen::Ref<Eigen::ArrayXd> p, const Eigen::Ref<const Eigen::ArrayXd>& g,
                AdamWMoments& moments, const AdamW& config, std::int64_t t, bool decay);

}  // namespace tplab::reference
