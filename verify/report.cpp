#include "report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "attention_scores.hpp"
#include "problem.hpp"
#include "scheme_costs.hpp"

namespace tplab::verify {
namespace {

std::string describe_comm(const std::vector<CollectiveCount>& counts) {
  if (counts.empty()) return "none";
  std::string text;
  for (const auto& c : counts) {
    if (!text.empty()) text += "; ";
    text += fmt::format("{} x{} on {}({}) {} elements", collective_form(c.collective, c.op, c.root),
                        c.calls, c.group, c.group_size, c.elements);
  }
  return text;
}

std::string shape_text(const RunConfig& c) {
  return to_string(c.shape);
}

/// What the heading says of the inputs when they are not the centred default.
std::string regime_text(const RunResult& run) {
  const RunConfig& c = run.config;
  if (c.exact) return " | exact (integer inputs, linear pair)";
  std::string text;
  if (c.shifted_input) text += fmt::format(" | x ~ {:g} + U[-1,1)", kShiftedInputMean);
  if (c.large_scores) {
    text += fmt::format(" | q.k/sqrt(d) up to {:.0f} (exp overflows {} past {:.1f}), dy = 0",
                        run.largest_score, dtype_name(c.dtype), exp_overflow_point(c.dtype));
  }
  return text;
}

/// The per-rank total against the model, then every row that differs.
void print_comm_check(const RunResult& run, std::FILE* out) {
  const model::CommCheck& c = run.comm;
  fmt::print(out, "  communication per rank: {} elements measured, {} model: {}\n",
             c.measured_elements(), c.model_elements(), run.properties.describe(Property::comm));
  for (const auto& [phase, rows] : {std::pair{"forward", &c.forward}, {"backward", &c.backward}}) {
    for (const model::CommComparison& r : *rows) {
      if (r.matches()) continue;
      fmt::print(out,
                 "    {} {} on {}: measured {} calls, {} elements on {} ranks; model {} calls, {} "
                 "elements on {} ranks\n",
                 phase, collective_form(r.collective, r.op, r.root), r.group, r.calls, r.elements,
                 r.group_size, r.model_calls, r.model_elements, r.model_group_size);
    }
  }
}

}  // namespace

std::string tolerance_used_text(double share, bool nonfinite) {
  if (nonfinite) return "NaN/Inf";
  if (!std::isfinite(share)) return "inf";
  if (share * 100 < 1e4) return fmt::format("{:.0f}%", share * 100);
  return fmt::format("{:.1e}%", share * 100);
}

void print_tensor_table(const std::vector<TensorCheck>& tensors, std::FILE* out) {
  std::size_t width = 11;  // of the names: "d_ln1_gamma", or a GPT layer's "d_layer0.ln1_gamma"
  for (const TensorCheck& t : tensors) width = std::max(width, t.name.size());
  fmt::print(out, "  {:<{}} {:<11} {:>10} {:>10} {:>9} {:>8} {:>8} {:>5}  {}\n", "tensor", width,
             "shape", "max_abs", "rel_l2", "atol", "rtol", "used", "repl", "pass");
  for (const TensorCheck& t : tensors) {
    std::string verdict = t.pass ? "ok" : "FAIL";
    if (!t.checker_fault.empty()) {
      verdict += fmt::format("  findings arrived broken: {}", t.checker_fault);
    } else if (!t.replicas_differ.empty()) {
      verdict +=
          fmt::format("  replicas differ: {}, but rank {} differs from rank {} by up to {:.3g}",
                      t.replicas_differ, t.replica_other, t.replica_first, t.replica_difference);
    } else if (t.nonfinite > 0) {
      verdict += fmt::format(
          "  {} NaN/Inf, first at {}", t.nonfinite,
          t.worst_where.empty() ? fmt::format("index {}", t.first_nonfinite) : t.worst_where);
    } else if (!t.pass) {
      // every digit f64 holds: with f64's tolerance two values can agree to 12 digits and fail
      verdict += fmt::format(
          "  worst at {}: got {:.17g}, reference {:.17g}",
          t.worst_where.empty() ? fmt::format("index {}", t.worst_index) : t.worst_where,
          t.worst_got, t.worst_ref);
    }
    // Where no L2 bound applies (a zero gradient), rel_l2 compares noise with noise: not shown.
    const std::string rel_l2 =
        std::isfinite(t.max_rel_l2) ? fmt::format("{:.2e}", t.rel_l2) : std::string("-");
    fmt::print(out, "  {:<{}} {:<11} {:>10.2e} {:>10} {:>9.1e} {:>8.0e} {:>8} {:>5}  {}\n", t.name,
               width, to_string(t.global), t.max_abs, rel_l2, t.atol, t.rtol,
               tolerance_used_text(t.share, t.nonfinite > 0), fmt::format("x{}", t.replicas),
               verdict);
  }
  for (const TensorCheck& t : tensors) {
    if (const ZeroGradient* z = zero_gradient(t.name);
        z != nullptr && !std::isfinite(t.max_rel_l2)) {
      fmt::print(out,
                 "  note: {} is 0 in exact arithmetic ({}), so both sides hold round-off;\n"
                 "        it is held to |err| <= atol with atol from {}'s scale, and no rel_l2\n",
                 t.name, z->why, zero_gradient_sibling(t.name));
    }
  }
}

void print_run(const RunResult& run, std::FILE* out) {
  const RunConfig& c = run.config;
  // the linear pair has no attention and no block to recompute
  const BlockTraining training = c.exact ? BlockTraining{} : c.options.training;
  fmt::print(out, "\n{} | np={} ({}) | {} | {} | {} | seed={}{}{}{}{}\n", c.scheme, run.world_size,
             run.grid, dtype_name(c.dtype), run.backend, shape_text(c), c.seed, regime_text(run),
             c.options.regather ? " | regather" : "", c.options.overlap ? " | overlap" : "",
             describe_block_training(training));
  print_tensor_table(run.tensors, out);
  fmt::print(out, "  communication per rank, forward:  {}\n", describe_comm(run.comm_forward));
  fmt::print(out, "  communication per rank, backward: {}\n", describe_comm(run.comm_backward));
  fmt::print(out,
             "  kept from forward for backward (measured on the device): {} bytes on the rank "
             "that keeps most, model {}: {}{}\n",
             run.saved_bytes, run.saved_bytes_model, run.properties.describe(Property::kept),
             c.options.regather ? " (gathered copies dropped, gathered again)" : "");
  if (const auto kept_savings = model::cost_model_of(c.scheme).kept_savings) {
    const Workload workload = c.exact ? Workload::linear_pair : Workload::block;
    const model::KeptSavings savings = kept_savings(c.shape, run.world_size, workload);
    fmt::print(out, "  {} keeps {} bytes fewer than {}: {} (model)\n", savings.technique,
               static_cast<std::size_t>(savings.elements) * dtype_size(c.dtype),
               savings.compared_with, savings.formula);
  }
  print_comm_check(run, out);
  if (training.recompute != Recompute::none) {
    fmt::print(
        out, "  recomputed against kept (Recompute::none), every output and gradient: {}\n",
        run.properties.holds(Property::recompute)
            ? std::string("bit for bit the same")
            : fmt::format("BITS DIFFER on rank{} {} (this rank's first: {})",
                          run.properties.ranks_where_not(Property::recompute).size() > 1 ? "s" : "",
                          fmt::join(run.properties.ranks_where_not(Property::recompute), ","),
                          run.recompute_first_difference.empty() ? std::string("none")
                                                                 : run.recompute_first_difference));
  }
  for (const std::string& fault : run.checker_faults) {
    fmt::print(out, "  checker's data broken: {}\n", fault);
  }
  fmt::print(out, "  {} ({} tensors, forward {:.1f} ms, backward {:.1f} ms){}\n",
             run.pass ? "PASS" : "FAIL", run.tensors.size(), run.forward_seconds * 1e3,
             run.backward_seconds * 1e3, run.properties.first_broken());
  std::fflush(out);
}

nlohmann::json comm_json(const std::vector<model::CommComparison>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : rows) {
    out.push_back({{"collective", collective_name(c.collective)},
                   {"op", reduces(c.collective) ? nlohmann::json(reduce_op_name(c.op)) : nullptr},
                   {"root", rooted(c.collective) ? nlohmann::json(c.root) : nullptr},
                   {"group", c.group},
                   {"group_size", c.group_size},
                   {"calls", c.calls},
                   {"elements", c.elements},
                   {"bytes", c.bytes},
                   {"bus_elements", c.bus_elements},
                   {"seconds", c.seconds},
                   {"model_group_size", c.model_group_size},
                   {"model_calls", c.model_calls},
                   {"model_elements", c.model_elements},
                   {"match", c.matches()}});
  }
  return out;
}

nlohmann::json tensors_json(const std::vector<TensorCheck>& checks) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const TensorCheck& t : checks) {
    // JSON has no Inf or NaN: a non-finite error is written as null and pass is false.
    const auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nullptr; };
    tensors.push_back({{"name", t.name},
                       {"shape", t.global},
                       {"max_abs", number(t.max_abs)},
                       {"rel_l2", number(t.rel_l2)},
                       {"atol", t.atol},
                       {"rtol", t.rtol},
                       {"max_rel_l2", number(t.max_rel_l2)},
                       {"tolerance_used", number(t.share)},
                       {"worst_index", t.worst_index},
                       {"nonfinite", t.nonfinite},
                       {"replicas", t.replicas},
                       {"replicas_identical", t.replicas_differ.empty()},
                       {"replica_max_difference", t.replica_difference},
                       {"bits", fmt::format("{:016x}", t.fingerprint)},
                       {"pass", t.pass}});
  }
  return tensors;
}

nlohmann::json to_json(const RunResult& run) {
  const RunConfig& c = run.config;
  nlohmann::json j = {
      {"workload", "block"},
      {"scheme", c.scheme},
      {"np", run.world_size},
      {"dp", run.config.options.dp},
      {"dp_buckets", name_in(kGradientBucketNames, run.config.options.dp_buckets)},
      {"grid", run.grid},
      {"backend", run.backend},
      {"dtype", dtype_name(c.dtype)},
      {"exact", c.exact},
      {"regather", c.options.regather},
      {"overlap", c.options.overlap},
      {"shifted_input", c.shifted_input && !c.exact},
      {"large_scores", c.large_scores && !c.exact},
      {"largest_score", run.largest_score},
      {"seed", c.seed},
      {"shape", {{"b", c.shape.b}, {"s", c.shape.s}, {"h", c.shape.h}, {"heads", c.shape.heads}}},
      {"pass", run.pass},
      {"tensors", tensors_json(run.tensors)},
      {"comm", comm_json(run.comm.total)},
      {"comm_phases",
       {{"forward", comm_json(run.comm.forward)}, {"backward", comm_json(run.comm.backward)}}},
      {"seconds", {{"forward", run.forward_seconds}, {"backward", run.backward_seconds}}},
      {"saved_bytes", run.saved_bytes},
      {"saved_bytes_model", run.saved_bytes_model},
      {"checker_faults", run.checker_faults}};
  for (const Named<Property>& p : kPropertyNames) {
    j[fmt::format("{}_match", p.name)] = run.properties.holds(p.value);
    j[fmt::format("{}_mismatch_ranks", p.name)] = run.properties.ranks_where_not(p.value);
  }
  // the linear pair has no attention and no block to recompute
  j.update(block_training_json(c.exact ? BlockTraining{} : c.options.training));
  return j;
}

namespace {

/// The summary's name for a run's inputs: the exact check, the block on centred inputs, with x
/// far from zero, or with attention scores past exp's overflow point.
std::string check_text(const nlohmann::json& run) {
  if (run.value("workload", "block") == "gpt") return "gpt";
  if (run["exact"].get<bool>()) return "exact";
  if (run.value("large_scores", false)) return "scores";
  return run["shifted_input"].get<bool>() ? fmt::format("x+{:g}", kShiftedInputMean) : "block";
}

/// What a run kept for backward, in KiB ("-" for the GPT, whose kept bytes train measures).
std::string kept_text(const nlohmann::json& run) {
  if (!run.contains("saved_bytes")) return "-";
  return fmt::format("{:.1f}", run["saved_bytes"].get<double>() / 1024);
}

/// The cost model's verdict on a run's communication: its collectives for the block, its
/// transfers between pipeline stages for the GPT on stages ("-" on one: the model does not
/// price the GPT's own collectives).
std::string comm_text(const nlohmann::json& run) {
  if (run.contains("comm_match")) return run["comm_match"].get<bool>() ? "= model" : "differs";
  if (run["pp"].get<int>() == 1) return "-";  // the GPT's collectives are not modelled
  return run["transfers_as_modelled"].get<bool>() ? "= model" : "differs";
}

}  // namespace

void print_summary(const nlohmann::json& runs, std::FILE* out) {
  fmt::print(out, "\n{:=<78}\nsummary\n", "");
  fmt::print(out,
             "  {:<7} {:>3} {:>5} {:<13} {:<5} {:<10} {:<6} {:>7} {:>9} {:>10} {:>10} {:>8}  {}\n",
             "scheme", "np", "hosts", "grid", "dtype", "shape", "check", "tensors", "max used",
             "max rel_l2", "kept KiB", "comm", "verdict");
  for (const auto& r : runs) {
    double used = 0, rel = 0;
    bool nonfinite = false;
    for (const auto& t : r["tensors"]) {
      const auto value = [&](const char* key) {
        return t[key].is_number() ? t[key].get<double>() : INFINITY;
      };
      used = std::max(used, value("tolerance_used"));
      nonfinite = nonfinite || t["nonfinite"].get<std::int64_t>() > 0;
      if (!t["max_rel_l2"].is_null()) rel = std::max(rel, value("rel_l2"));
    }
    const auto& shape = r["shape"];
    fmt::print(
        out,
        "  {:<7} {:>3} {:>5} {:<13} {:<5} {:<10} {:<6} {:>7} {:>9} {:>10.2e} {:>10} {:>8}"
        "  {}\n",
        r["scheme"].get<std::string>(), r["np"].get<int>(), r["hosts"].size(),
        r["grid"].get<std::string>(), r["dtype"].get<std::string>(),
        fmt::format("{},{},{},{}", shape["b"].get<std::int64_t>(), shape["s"].get<std::int64_t>(),
                    shape["h"].get<std::int64_t>(), shape["heads"].get<std::int64_t>()),
        check_text(r), r["tensors"].size(), tolerance_used_text(used, nonfinite), rel, kept_text(r),
        comm_text(r), r["pass"].get<bool>() ? "PASS" : "FAIL");
  }
}

}  // namespace tplab::verify
