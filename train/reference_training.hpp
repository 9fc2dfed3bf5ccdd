/// @file
/// The single-device reference trained on the same data from the same parameters.
#pragma once

#include <cstdint>
#include <memory>

#include "gpt/gpt_shape.hpp"
#include "host_array.hpp"
#include "training_data.hpp"

namespace tplab::train {

/// The reference GPT (reference/gpt.hpp) in f64 and its SGD, one step at a time, so that a
/// run can print each step's pair of losses as soon as both are known.
class ReferenceTraining {
 public:
  /// The reference model from the global `initial` parameters.
  ReferenceTraining(const gpt::GptShape& shape, const verify::HostArrays& initial,
                    double learning_rate);
  ~ReferenceTraining();
  ReferenceTraining(const ReferenceTraining&) = delete;
  ReferenceTraining& operator=(const ReferenceTraining&) = delete;

  /// Forward and backward on `batch`, then p -= learning_rate * dp for every parameter;
  /// returns the mean loss before the update.
  double step(const Batch& batch);

 private:
  struct Model;  // the reference's types stay out of this header
  std::unique_ptr<Model> model_;
};

}  // namespace tplab::train
