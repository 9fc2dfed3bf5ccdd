/// @file
/// The parameter and FLOP counts of a whole GPT.
#include "plan/gpt_model.hpp"

#include "flops.hpp"

namespace tplab::model::plan {

BlockShape block_shape_of(const GptModel& model, std::int64_t micro_batch) {
  return {micro_batch, model.seq, model.hidden, model.heads};
}

std::int64_t block_parameters(const GptModel& model) {
  const std::int64_t h = model.hidden;
  return 12 * h * h + 13 * h;
}

std::int64_t model_parameters(const GptModel& model) {
  const std::int64_t h = model.hidden;
  return model.layers * block_parameters(model) + model.vocab * h + model.seq * h + 2 * h;
}

double model_step_flops(const GptModel& model, const TrainingBatch& batch) {
  const BlockShape one_sequence = block_shape_of(model, 1);
  const double per_sequence = static_cast<double>(model.layers) * block_step_flops(one_sequence) +
                              6.0 * static_cast<double>(model.seq * model.hidden * model.vocab);
  return static_cast<double>(batch.global_batch) * per_sequence;
}

}  // namespace tplab::model::plan
