/// @file
/// verify's runs of the whole GPT (train/gpt_check.hpp) as verify prints and records them.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "gpt_check.hpp"

namespace tplab::app {

/// The run's heading (scheme, ranks and grid, dtype, backend, the GPT's size and the regimes
/// it reaches: the padded vocabulary, the logits' offset past exp's overflow point, dropout, the
/// micro-batches and stages), one row per tensor, the padding and the transfers between
/// stages, and its verdict.
void print_gpt_check(const train::GptCheck& check, const std::string& backend, std::FILE* out);

/// {"workload": "gpt", "scheme", "np", "dp", "pp", "micro_batches", "schedule", "grid",
///  "backend", "dtype", "seed", "shape": {"b", "s", "h", "heads", "vocab", "layers"},
///  "padded_vocab", "logit_offset", "dropout", "loss", "reference_loss", "tensors": [...],
///  "padding_untouched", "transfers_as_modelled", "pass"}, its tensors as verify's block runs
/// write theirs.
nlohmann::json gpt_check_json(const train::GptCheck& check, const std::string& backend);

}  // namespace tplab::app
