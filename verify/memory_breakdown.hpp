/// @file
/// MemoryBreakdown: what one rank holds while it trains, by kind, measured on the device beside
/// the cost model's prediction.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "comm/comm.hpp"
#include "scheme/parallel_module.hpp"

namespace tplab::verify {

/// One kind of memory: the bytes of the tensors that hold it, counted on the device, and the
/// model's bytes for it where the model has them.
struct MemoryKind {
  std::int64_t measured = 0;          ///< bytes
  std::optional<std::int64_t> model;  ///< bytes, or none where the model does not count it
};

/// A rank's memory split as ZeRO splits it (parameters, gradients, optimizer state,
/// activations), and the allocator's high-water mark over a step, which holds all of them and
/// whatever the step allocates for a while (its workspace).
struct MemoryBreakdown {
  MemoryKind parameters;            ///< the rank's parameter shards
  MemoryKind gradients;             ///< their gradients, once backward has run
  MemoryKind optimizer;             ///< the optimizer's state (AdamW's moments, bf16's f32 masters)
  MemoryKind activations;           ///< what forward keeps for backward (KeptBytesProbe's measure)
  std::int64_t peak_allocated = 0;  ///< the device's live bytes at their highest in a step
  /// The process's peak resident memory (VmHWM), a cross-check on the CPU; 0 where not read.
  std::int64_t peak_resident = 0;
};

/// The bytes of every tensor of `tensors`.
std::int64_t tensor_bytes(const TensorMap& tensors);

/// Every field the largest over the ranks of `world` (a model's too). Collective.
MemoryBreakdown largest_over_ranks(Comm& world, const MemoryBreakdown& mine);

/// Empty when every rank of `world` measured each kind that has a model exactly as its model
/// says; otherwise the lowest such rank and its first kind that differs, as "rank 3:
/// activations 1234 bytes measured, 1200 by the cost model". Collective.
std::string first_difference_from_model(Comm& world, const MemoryBreakdown& mine);

/// {"parameters": {"measured", "model"}, ..., "peak_allocated", "peak_resident"}; a model the
/// cost model has not is null.
nlohmann::json to_json(const MemoryBreakdown& memory);

}  // namespace tplab::verify
