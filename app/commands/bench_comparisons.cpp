#include "bench_comparisons.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "scheme/recompute.hpp"

namespace tplab::app {
namespace {

// ---- overlap: exposed communication with overlap off and on -----------------------------------

nlohmann::json measure_overlap(World& w, const bench::StepConfig& config) {
  const bench::OverlapComparison c = bench::compare_overlap(w.comm, w.device, config);
  return {{"overlap_comparison",
           {{"step_ms_off", c.step_off.median * 1e3},
            {"step_ms_on", c.step_on.median * 1e3},
            {"exposed_ms_off", c.exposed_off.median * 1e3},
            {"exposed_ms_on", c.exposed_on.median * 1e3}}}};
}

void print_overlap_run(const nlohmann::json& record, const bench::StepConfig& config) {
  const nlohmann::json& c = record["overlap_comparison"];
  fmt::print(
      "exposed communication (blocked in collectives), medians of {} alternating steps: "
      "{:.2f} ms without overlap, {:.2f} ms with it; step {:.1f} ms and {:.1f} ms\n",
      config.repeats, c["exposed_ms_off"].get<double>(), c["exposed_ms_on"].get<double>(),
      c["step_ms_off"].get<double>(), c["step_ms_on"].get<double>());
}

void print_overlap_summary(const nlohmann::json& runs) {
  for (const auto& r : runs) {
    if (!r.contains("overlap_comparison")) continue;
    const auto& c = r["overlap_comparison"];
    fmt::print(
        "  {} np={}: exposed communication {:.2f} ms without overlap, {:.2f} ms with it "
        "(step {:.1f} ms, {:.1f} ms)\n",
        r["scheme"].get<std::string>(), r["np"].get<int>(), c["exposed_ms_off"].get<double>(),
        c["exposed_ms_on"].get<double>(), c["step_ms_off"].get<double>(),
        c["step_ms_on"].get<double>());
  }
}

// ---- recompute: none, selective and full in turn ----------------------------------------------

constexpr std::array<Recompute, 3> kModes = {Recompute::none, Recompute::selective,
                                             Recompute::full};

nlohmann::json measure_recompute(World& w, const bench::StepConfig& config) {
  const bench::RecomputeComparison c = bench::compare_recompute(w.comm, w.device, config);
  nlohmann::json modes = nlohmann::json::object();
  for (std::size_t k = 0; k < kModes.size(); ++k) {
    modes[std::string(recompute_name(kModes[k]))] = {
        {"step_ms", c.step[k].median * 1e3},
        {"step_ms_min", c.step[k].min * 1e3},
        {"step_ms_max", c.step[k].max * 1e3},
        {"step_ratio", c.step[k].median / c.step[0].median},
        {"flops", c.flops[k]},
        {"flops_ratio", c.flops[k] / c.flops[0]},
        {"kept_bytes", c.kept_bytes[k]},
        {"model_kept_bytes", c.model_kept_bytes[k]},
        {"peak_bytes", c.peak_bytes[k]}};
  }
  return {{"recompute_comparison", modes}};
}

void print_recompute_run(const nlohmann::json& record, const bench::StepConfig& config) {
  fmt::print(
      "recomputation, medians of {} steps of each mode in turn (bytes: the rank that "
      "keeps most):\n  {:<10} {:>9} {:>7} {:>7} {:>10} {:>10} {:>10}\n",
      config.repeats, "recompute", "step ms", "x none", "FLOPs x", "kept KiB", "model KiB",
      "peak KiB");
  for (const Recompute mode : kModes) {
    const nlohmann::json& m = record["recompute_comparison"][std::string(recompute_name(mode))];
    fmt::print("  {:<10} {:>9.2f} {:>7.3f} {:>7.3f} {:>10.1f} {:>10.1f} {:>10.1f}\n",
               recompute_name(mode), m["step_ms"].get<double>(), m["step_ratio"].get<double>(),
               m["flops_ratio"].get<double>(), m["kept_bytes"].get<double>() / 1024,
               m["model_kept_bytes"].get<double>() / 1024, m["peak_bytes"].get<double>() / 1024);
  }
}

void print_nothing(const nlohmann::json& /*runs*/) {}

// ---- reference: the single-device step ---------------------------------------------------------

nlohmann::json measure_reference(World& w, const bench::StepConfig& config) {
  if (w.comm.rank() != 0) return nlohmann::json::object();
  const bench::Spread s = bench::time_reference_step(config);
  return {{"reference_step_ms", s.median * 1e3},
          {"reference_step_ms_min", s.min * 1e3},
          {"reference_step_ms_max", s.max * 1e3}};
}

void print_reference_run(const nlohmann::json& record, const bench::StepConfig& config) {
  fmt::print("reference (one process, Eigen, {}): {:.1f} ms (min {:.1f}, max {:.1f})\n",
             dtype_name(config.dtype), record["reference_step_ms"].get<double>(),
             record["reference_step_ms_min"].get<double>(),
             record["reference_step_ms_max"].get<double>());
}

void print_reference_summary(const nlohmann::json& runs) {
  for (const auto& r : runs) {
    if (!r.contains("reference_step_ms")) continue;
    const nlohmann::json& s = r["shape"];
    fmt::print(
        "  reference, one process (Eigen, {}, {},{},{},{}): {:.1f} ms (min {:.1f}, max "
        "{:.1f})\n",
        r["dtype"].get<std::string>(), s["b"].get<int>(), s["s"].get<int>(), s["h"].get<int>(),
        s["heads"].get<int>(), r["reference_step_ms"].get<double>(),
        r["reference_step_ms_min"].get<double>(), r["reference_step_ms_max"].get<double>());
  }
}

const std::array<ComparisonEntry, 3> kComparisons = {{
    {.comparison = Comparison::overlap,
     .help = "steps with overlap off and on, alternating, and the exposed communication of both",
     .modules = 2,
     .measure = measure_overlap,
     .print_run = print_overlap_run,
     .print_summary = print_overlap_summary},
    {.comparison = Comparison::recompute,
     .help = "steps with --recompute none, selective and full in turn: each one's step time, "
             "FLOPs, kept and peak bytes against none's",
     .modules = 3,
     .measure = measure_recompute,
     .print_run = print_recompute_run,
     .print_summary = print_nothing},
    {.comparison = Comparison::reference,
     .help = "the single-device reference's step, on rank 0 of the first run of each scheme",
     .modules = 1,
     .measure = measure_reference,
     .print_run = print_reference_run,
     .print_summary = print_reference_summary},
}};

}  // namespace

std::span<const ComparisonEntry> comparison_entries() {
  return kComparisons;
}

const ComparisonEntry& comparison_entry(Comparison comparison) {
  for (const ComparisonEntry& e : kComparisons) {
    if (e.comparison == comparison) return e;
  }
  throw InternalError("a comparison without an entry");
}

std::string comparisons_help() {
  std::string text = "none: nothing besides the steps";
  for (const ComparisonEntry& e : kComparisons) {
    text += fmt::format("; {}: {}", name_in(kComparisonNames, e.comparison), e.help);
  }
  return text;
}

}  // namespace tplab::app
