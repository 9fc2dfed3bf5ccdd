/// @file
/// The single-device reference trained on the same data from the same parameters.
#pragma once

#include <cstdint>
#include <memory>

#include "device/dropout_mask.hpp"
#include "gpt/gpt_shape.hpp"
#include "host_array.hpp"
#include "optim/sharded_optimizer.hpp"
#include "training_data.hpp"

namespace tplab::train {

/// What one reference step found.
struct ReferenceStep {
  double loss = 0;           ///< the mean loss before the update
  double gradient_norm = 0;  ///< the global norm of the whole gradient, before clipping
};

/// The reference's loss and gradients of one batch.
struct ReferenceGradients {
  double loss = 0;               ///< the mean loss
  verify::HostArrays gradients;  ///< every parameter's, by gradient name ("d_layer0.wq", ...)
};

/// The reference GPT in f64 from the global `parameters` (vocabulary unpadded): forward and
/// backward of `batch`, dropping as step `step` of `dropout` draws its masks.
ReferenceGradients reference_gradients(const gpt::GptShape& shape,
                                       const verify::HostArrays& parameters, const Batch& batch,
                                       DropoutOptions dropout, std::int64_t step);

/// The reference GPT (reference/gpt.hpp) in f64 and its optimizer (SGD, or reference/adamw.hpp's
/// AdamW, which shares no code with parallel/), one step at a time, so that a run can print
/// each step's pair of losses as soon as both are known.
class ReferenceTraining {
 public:
  /// The reference model from the global `initial` parameters, trained by `optimizer` with the
  /// gradient clipped to a norm of at most `clip` (0: not clipped), dropping with `dropout`
  /// (step k draws the masks of step k).
  ReferenceTraining(const gpt::GptShape& shape, const verify::HostArrays& initial,
                    const OptimizerConfig& optimizer, double clip, DropoutOptions dropout = {});
  ~ReferenceTraining();
  ReferenceTraining(const ReferenceTraining&) = delete;
  ReferenceTraining& operator=(const ReferenceTraining&) = delete;

  /// Forward and backward on `batch`, the gradient clipped, then the optimizer's update of
  /// every parameter.
  ReferenceStep step(const Batch& batch);

  /// Every parameter as it stands, by its global name ("embedding", "layer0.wq", ...).
  verify::HostArrays parameters() const;

 private:
  struct Model;  // the reference's types stay out of this header
  std::unique_ptr<Model> model_;
};

}  // namespace tplab::train
