#include "gpt_check.hpp"

#include <fmt/format.h>

#include <cmath>

#include "device/cpu_device.hpp"
#include "harness.hpp"
#include "initial_parameters.hpp"
#include "pipelined_gpt.hpp"
#include "reference_training.hpp"
#include "tolerance.hpp"
#include "training_data.hpp"
#include "vocab_padding.hpp"

namespace tplab::train {
namespace {

/// This rank's values of `tensor` as f64, row-major (none where another stage holds it).
std::vector<double> shard_values(Device& device, const TensorMap& tensors,
                                 const std::string& name) {
  const auto found = tensors.find(name);
  if (found == tensors.end()) return {};
  std::vector<double> values(static_cast<std::size_t>(found->second.numel()));
  device.download(found->second, values);
  return values;
}

}  // namespace

GptCheck check_gpt(Comm& world, Device& device, const TrainConfig& config) {
  validate_training(world.size(), config);
  const gpt::GptShape& shape = config.shape;
  const verify::HostArrays initial = initial_parameters(shape, config.seed, config.logit_offset);
  const Batch batch = synthetic_batch(shape, config.seed, 0);
  const ReferenceGradients expected =
      reference_gradients(shape, initial, batch, config.options.training.dropout, 0);

  PipelinedGpt gpt(world, device, config, initial);
  world.counters().reset();
  gpt.step(batch, 0);
  const StageTransfers moved = transfers_counted(world.counters());

  GptCheck result;
  result.config = config;
  result.world_size = world.size();
  result.grid = training_grid(world.size(), config);
  result.padded_vocab = gpt.padded().vocab;
  result.loss = gpt.mean_loss();
  result.reference_loss = expected.loss;

  // the reference's gradients over the padded vocabulary: the padding's are 0
  verify::HostArrays by_parameter;
  for (const std::string& p : gpt::parameter_names(shape)) {
    by_parameter.emplace(p, expected.gradients.at(gradient_name(p)));
  }
  verify::HostArrays reference;
  for (auto& [name, array] : padded_parameters(by_parameter, shape.vocab, result.padded_vocab)) {
    reference.emplace(gradient_name(name), std::move(array));
  }
  reference.emplace("loss", verify::HostArray{{1}, {expected.loss}});
  const TensorPlacement loss_placement = replicated("loss", {1}, world.size());

  const verify::Tolerance tolerance = verify::tolerance_for(config.dtype, false);
  std::vector<verify::ShardToCheck> shards;
  shards.push_back({"loss",
                    &reference.at("loss"),
                    &loss_placement,
                    {result.loss},
                    tolerance,
                    std::abs(expected.loss)});
  for (const std::string& parameter : gpt::parameter_names(shape)) {
    const std::string name = gradient_name(parameter);
    verify::ShardToCheck shard{name,
                               &reference.at(name),
                               &find_placement(gpt.placements(), parameter),
                               shard_values(device, gpt.model().gradients(), name),
                               tolerance,
                               verify::rms(reference.at(name).values)};
    if (const std::string sibling = verify::zero_gradient_sibling(name); !sibling.empty()) {
      shard.scale = verify::rms(reference.at(sibling).values);
      shard.tolerance.max_rel_l2 = INFINITY;
    }
    shards.push_back(std::move(shard));
  }
  result.tensors = verify::compare_shards(world, shards);
  result.padding_touched =
      padding_problem(world, device, gpt.model().gradients(), gpt.placements(), shape.vocab, "d_");
  result.transfers_differ = transfer_difference(
      world, moved == gpt.modelled_transfers() ? TransferMismatch{} : TransferMismatch{0, moved},
      gpt.modelled_transfers());
  result.pass = result.padding_touched.empty() && result.transfers_differ.empty();
  for (const verify::TensorCheck& t : result.tensors) result.pass = result.pass && t.pass;
  return result;
}

}  // namespace tplab::train
