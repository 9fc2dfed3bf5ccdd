#include "bench_pipeline.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tplab::app {

nlohmann::json pipeline_fields(const bench::PipelineTiming& t) {
  nlohmann::json stages = nlohmann::json::array();
  bool as_modelled = true;
  for (const bench::StageTiming& s : t.stages) {
    stages.push_back({{"idle_share", s.idle_share},
                      {"kept_bytes", s.kept_bytes},
                      {"model_kept_bytes", s.model_kept_bytes},
                      {"in_flight", s.in_flight}});
    as_modelled = as_modelled && s.kept_bytes == s.model_kept_bytes;
  }
  return {{"workload", "gpt"},
          {"pp", t.stages.size()},
          {"micro_batches", t.micro_batches},
          {"schedule", t.schedule},
          {"layers", t.layers},
          {"vocab", t.vocab},
          {"padded_vocab", t.padded_vocab},
          {"bubble_formula", t.bubble_formula},
          {"comm_ms_pp", t.pp_comm_seconds.median * 1e3},
          {"comm_share_pp", t.pp_comm_seconds.median / t.step.step_seconds.median},
          {"bytes_per_rank_pp", t.pp_bytes_per_rank},
          {"model_bytes_per_rank_pp", t.model_pp_bytes_per_rank},
          {"pp_transfers_as_modelled", t.pp_transfers_as_modelled},
          {"stages", stages},
          {"kept_as_modelled", as_modelled}};
}

void print_pipeline_run(const nlohmann::json& record) {
  fmt::print(
      "pipeline: L={} V={} in {} stage{}, M={} micro-batches per replica{}; the bubble's "
      "formula (S - 1)/(M + S - 1) = {:.0f}%\n",
      record["layers"].get<int>(), record["vocab"].get<int>(), record["pp"].get<int>(),
      record["pp"].get<int>() == 1 ? "" : "s", record["micro_batches"].get<int>(),
      record["pp"].get<int>() == 1 ? "" : ", " + record["schedule"].get<std::string>(),
      record["bubble_formula"].get<double>() * 100);
  fmt::print("  between stages: {:.3f} MiB a rank sent and received [model {:.3f}], {}\n",
             record["bytes_per_rank_pp"].get<double>() / 0x1p20,
             record["model_bytes_per_rank_pp"].get<double>() / 0x1p20,
             record["pp_transfers_as_modelled"].get<bool>()
                 ? "every rank's sends, receives and bytes as modelled"
                 : "NOT AS MODELLED on some rank");
  const auto mib = [](const nlohmann::json& bytes) { return bytes.get<double>() / 0x1p20; };
  int s = 0;
  for (const nlohmann::json& stage : record["stages"]) {
    fmt::print(
        "  stage {}: idle {:.0f}% of the step (the bubble, and waiting for transfers); kept for "
        "backward {:.2f} MiB [model {:.2f}: {} micro-batch{} in flight]{}\n",
        s++, stage["idle_share"].get<double>() * 100, mib(stage["kept_bytes"]),
        mib(stage["model_kept_bytes"]), stage["in_flight"].get<int>(),
        stage["in_flight"].get<int>() == 1 ? "" : "es",
        stage["kept_bytes"] == stage["model_kept_bytes"] ? "" : "  NOT AS MODELLED");
  }
}

namespace {

/// Whether `base` is the one-stage baseline of the pipelined run `r`.
bool baseline_of(const nlohmann::json& base, const nlohmann::json& r) {
  const int stages = r["pp"].get<int>();
  return base.value("workload", "block") == "gpt" && base["pp"].get<int>() == 1 &&
         base["scheme"] == r["scheme"] && base["mode"] == r["mode"] && base["dp"] == r["dp"] &&
         base["overlap"] == r["overlap"] && base["shape"] == r["shape"] &&
         base["layers"] == r["layers"] && base["vocab"] == r["vocab"] &&
         base["micro_batches"] == r["micro_batches"] &&
         base["np"].get<int>() * stages == r["np"].get<int>();
}

}  // namespace

void add_pipeline_efficiency(nlohmann::json& runs) {
  for (auto& r : runs) r["pp_baseline"] = false;
  for (auto& r : runs) {
    if (r.value("workload", "block") != "gpt" || r["pp"].get<int>() == 1) continue;
    for (auto& base : runs) {
      if (!baseline_of(base, r)) continue;
      base["pp_baseline"] = true;
      const double stages = r["pp"].get<double>();
      r["pp_baseline_np"] = base["np"];
      r["pp_baseline_step_ms"] = base["step_ms"];
      r["pp_efficiency"] = base["step_ms"].get<double>() / (stages * r["step_ms"].get<double>());
      r["pp_efficiency_formula"] = 1.0 - r["bubble_formula"].get<double>();
    }
  }
}

void print_pipeline_lines(const nlohmann::json& runs) {
  for (const auto& r : runs) {
    if (r.value("workload", "block") != "gpt" || r["pp"].get<int>() == 1) continue;
    std::vector<std::string> idle;
    for (const auto& stage : r["stages"]) {
      idle.push_back(fmt::format("{:.0f}%", stage["idle_share"].get<double>() * 100));
    }
    fmt::print(
        "  {} {} np={} ({}, M={}, {}): stages idle {} of the step, the formula {:.0f}%; between "
        "stages {:.1f} ms ({:.0f}%, {:.2f} MiB/rank)",
        r["scheme"].get<std::string>(), r["mode"].get<std::string>(), r["np"].get<int>(),
        r["grid"].get<std::string>(), r["micro_batches"].get<int>(),
        r["schedule"].get<std::string>(), fmt::join(idle, " "),
        r["bubble_formula"].get<double>() * 100, r["comm_ms_pp"].get<double>(),
        r["comm_share_pp"].get<double>() * 100, r["bytes_per_rank_pp"].get<double>() / 0x1p20);
    if (r.contains("pp_efficiency")) {
      fmt::print(
          "; PP efficiency {:.2f} (1 - the formula: {:.2f}): {:.1f} ms against {:.1f} ms for one "
          "stage on {} rank{}",
          r["pp_efficiency"].get<double>(), r["pp_efficiency_formula"].get<double>(),
          r["step_ms"].get<double>(), r["pp_baseline_step_ms"].get<double>(),
          r["pp_baseline_np"].get<int>(), r["pp_baseline_np"].get<int>() == 1 ? "" : "s");
    }
    fmt::print("\n");
  }
}

}  // namespace tplab::app
