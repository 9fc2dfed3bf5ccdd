/// @file
/// One step of the whole GPT against the reference, tensor by tensor: the loss and the gradient
/// of every parameter, on any mesh of replicas, pipeline stages and tensor-parallel ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "tensor_check.hpp"
#include "trainer.hpp"

namespace tplab::train {

/// What one check of the GPT found, complete on every rank.
struct GptCheck {
  TrainConfig config;             ///< what was checked (one step: config.steps is not used)
  int world_size = 0;             ///< ranks
  std::string grid;               ///< as training_grid() prints it: "dp=2 pp=3 t=2"
  std::int64_t padded_vocab = 0;  ///< V padded to a multiple of its parts (V when it was)
  double loss = 0;                ///< the parallel model's mean loss
  double reference_loss = 0;      ///< the reference's, in f64
  /// "loss", then the gradient of every parameter in the order values flow through the model
  /// (gpt::parameter_names), each merged over every rank that holds a shard of it.
  std::vector<verify::TensorCheck> tensors;
  /// Empty, or where a gradient of a padded id (the embedding's rows, the head's columns from V
  /// on) is not exactly 0 (padding_problem).
  std::string padding_touched;
  /// Empty, or the first rank whose point-to-point calls or bytes between stages were not the
  /// cost model's (PipelinedGpt::modelled_transfers).
  std::string transfers_differ;
  /// Every tensor within its tolerance, replicas alike, the padding untouched and the transfers
  /// as modelled.
  bool pass = false;
};

/// Forward and backward of one batch through the GPT of `config` (its scheme, mesh, dtype,
/// dropout, logit offset, seed), every parameter's gradient (summed over micro-batches, averaged
/// over replicas) and the loss compared, shard by shard, with the f64 reference's on the whole
/// batch, at verify's tolerance for the dtype (verify::tolerance_for). Throws UsageError,
/// the same on every rank and before any collective, when the run cannot go ahead
/// (validate_training). Collective over `world`.
GptCheck check_gpt(Comm& world, Device& device, const TrainConfig& config);

}  // namespace tplab::train
