#include "verify_gpt.hpp"

#include <fmt/format.h>

#include <cmath>

#include "attention_scores.hpp"
#include "report.hpp"
#include "scheme/block_training.hpp"
#include "scheme/pipeline_schedule.hpp"

namespace tplab::app {
namespace {

/// The regimes the run reaches, for its heading.
std::string regime_text(const train::GptCheck& check) {
  const train::TrainConfig& c = check.config;
  std::string text;
  if (check.padded_vocab != c.shape.vocab) {
    text += fmt::format(" | V={} padded to {}", c.shape.vocab, check.padded_vocab);
  }
  if (c.logit_offset != 0) {
    text += fmt::format(" | logits + {:.0f} (exp overflows {} past {:.1f})", c.logit_offset,
                        dtype_name(c.dtype), verify::exp_overflow_point(c.dtype));
  }
  if (c.options.training.dropout.p > 0) {
    text += fmt::format(" | dropout {:g}", c.options.training.dropout.p);
  }
  if (c.options.overlap) text += " | overlap";
  if (c.options.micro_batches > 1 || c.options.pp > 1) {
    text += fmt::format(" | {} micro-batches", c.options.micro_batches);
    if (c.options.pp > 1) text += fmt::format(", {}", schedule_name(c.options.schedule));
  }
  return text;
}

}  // namespace

void print_gpt_check(const train::GptCheck& check, const std::string& backend, std::FILE* out) {
  const train::TrainConfig& c = check.config;
  fmt::print(out, "\n{} | np={} ({}) | {} | {} | GPT {} | seed={}{}\n", c.scheme, check.world_size,
             check.grid, dtype_name(c.dtype), backend, gpt::to_string(c.shape), c.seed,
             regime_text(check));
  verify::print_tensor_table(check.tensors, out);
  if (check.padded_vocab != c.shape.vocab) {
    fmt::print(out, "  padding (ids {}..{}): {}\n", c.shape.vocab, check.padded_vocab - 1,
               check.padding_touched.empty() ? "every gradient exactly 0"
                                             : "TOUCHED: " + check.padding_touched);
  }
  if (c.options.pp > 1) {
    fmt::print(
        out, "  transfers between stages: {}\n",
        check.transfers_differ.empty() ? "as the model says" : "DIFFER: " + check.transfers_differ);
  }
  fmt::print(out, "  loss {:.10g}, reference {:.10g}\n", check.loss, check.reference_loss);
  fmt::print(out, "  {} ({} tensors)\n", check.pass ? "PASS" : "FAIL", check.tensors.size());
}

nlohmann::json gpt_check_json(const train::GptCheck& check, const std::string& backend) {
  const train::TrainConfig& c = check.config;
  const BlockShape& b = c.shape.block;
  nlohmann::json j = {{"workload", "gpt"},
                      {"scheme", c.scheme},
                      {"np", check.world_size},
                      {"dp", c.options.dp},
                      {"pp", c.options.pp},
                      {"micro_batches", c.options.micro_batches},
                      {"schedule", schedule_name(c.options.schedule)},
                      {"grid", check.grid},
                      {"backend", backend},
                      {"dtype", dtype_name(c.dtype)},
                      {"seed", c.seed},
                      {"shape",
                       {{"b", b.b},
                        {"s", b.s},
                        {"h", b.h},
                        {"heads", b.heads},
                        {"vocab", c.shape.vocab},
                        {"layers", c.shape.layers}}},
                      {"padded_vocab", check.padded_vocab},
                      {"logit_offset", c.logit_offset},
                      {"overlap", c.options.overlap},
                      {"loss", std::isfinite(check.loss) ? nlohmann::json(check.loss) : nullptr},
                      {"reference_loss", check.reference_loss},
                      {"tensors", verify::tensors_json(check.tensors)},
                      {"padding_untouched", check.padding_touched.empty()},
                      {"transfers_as_modelled", check.transfers_differ.empty()},
                      {"pass", check.pass}};
  j.update(block_training_json(c.options.training));  // "dropout" {p, seed, keying}, "recompute"
  if (c.options.pp == 1) j["schedule"] = nullptr;     // one stage: no order to choose
  return j;
}

}  // namespace tplab::app
