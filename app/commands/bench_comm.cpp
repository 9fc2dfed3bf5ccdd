// `tplab bench comm`: the collective micro-benchmark (nccl-tests' table) for MpiComm.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "bench_commands.hpp"
#include "collective_bench.hpp"
#include "core/error.hpp"
#include "mpi_command.hpp"
#include "output_options.hpp"
#include "problem_options.hpp"
#include "process_resources.hpp"
#include "world_run.hpp"

namespace tplab::app {
namespace {

struct CommOptions {
  std::vector<std::string> collectives = bench::CollectiveBenchConfig{}.collectives;
  std::vector<int> np = {2};
  std::int64_t min_bytes = 8;
  std::int64_t max_bytes = std::int64_t{256} << 20;
  DType dtype = DType::f32;
  int warmup = 2;
  LaunchOptions launch{.json = {}, .timeout = 900, .hosts = {}, .allow_many_ranks = false};
};

// Messages of at least this size are the ones the overhead goal speaks of.
constexpr std::int64_t kLargeMessage = std::int64_t{1} << 20;

bench::CollectiveBenchConfig config_of(const CommOptions& o) {
  bench::CollectiveBenchConfig c;
  c.collectives = o.collectives;
  c.min_bytes = o.min_bytes;
  c.max_bytes = o.max_bytes;
  c.dtype = o.dtype;
  c.warmup = o.warmup;
  return c;
}

/// Refuses bad input before anything is launched, with the same messages the ranks would give.
void validate(const CommOptions& o) {
  const auto c = config_of(o);
  if (c.dtype != DType::f32 && c.dtype != DType::f64) {
    throw UsageError(fmt::format("--dtype {}: bench comm moves f32 or f64", dtype_name(o.dtype)));
  }
  for (const auto& name : c.collectives) bench::find_collective_case(name);
  bench::message_sizes(c.min_bytes, c.max_bytes, c.dtype);
  for (int np : o.np) {
    if (np < 1) throw UsageError(fmt::format("--np {}: a run needs at least one rank", np));
  }
  if (o.warmup < 0) throw UsageError("--warmup must be at least 0");
}

std::string_view mpi_function(Collective c) {
  switch (c) {
    case Collective::all_reduce:
      return "MPI_Allreduce";
    case Collective::all_gather:
      return "MPI_Allgather";
    case Collective::reduce_scatter:
      return "MPI_Reduce_scatter_block";
    case Collective::broadcast:
      return "MPI_Bcast";
    case Collective::reduce:
      return "MPI_Reduce";
    case Collective::send:
      return "MPI_Send";
    case Collective::recv:
      return "MPI_Recv";
  }
  return "?";
}

void print_header(const bench::CollectiveRow& r) {
  fmt::print("\n# {} on {} ranks, {}: tplab's Comm against {} on the same buffers{}\n",
             collective_name(r.collective), r.ranks, dtype_name(r.dtype),
             mpi_function(r.collective),
             bench::oversubscribed(r.ranks) ? fmt::format(" (OVERSUBSCRIBED: {} ranks on {} cores)",
                                                          r.ranks, bench::available_cores())
                                            : "");
  fmt::print("# {:>10} {:>10} {:>5} {:>10} {:>12} {:>12} {:>7} {:>10} {:>9}\n", "size(B)", "count",
             "type", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong", "raw(us)", "overhead");
}

void print_row(const bench::CollectiveRow& r) {
  fmt::print("  {:>10} {:>10} {:>5} {:>10.2f} {:>12.3f} {:>12.3f} {:>7} {:>10.2f} {:>+8.1f}%\n",
             r.bytes, r.count, dtype_name(r.dtype), r.seconds.median * 1e6, r.algbw, r.busbw,
             r.wrong, r.raw_seconds.median * 1e6, r.overhead * 100);
  std::fflush(stdout);
}

WorldResult comm_in_world(const CommOptions& o, World& w) {
  const bool printer = w.comm.rank() == 0;
  if (printer && w.hosts.host_count() > 1) fmt::print("ranks on {}\n", w.hosts.summary());
  validate(o);
  Collective current = Collective::all_reduce;
  bool first = true;
  const auto rows = bench::run_collective_bench(w.comm, w.mpi, w.device, config_of(o),
                                                [&](const bench::CollectiveRow& r) {
                                                  if (!printer) return;
                                                  if (first || r.collective != current)
                                                    print_header(r);
                                                  first = false;
                                                  current = r.collective;
                                                  print_row(r);
                                                });
  WorldResult result;
  for (const auto& r : rows) {
    result.pass = result.pass && r.wrong == 0;
    result.records.push_back(bench::to_json(r));
  }
  return result;
}

/// After every world size: the overhead against raw MPI on large messages, and the checks.
void print_summary(const nlohmann::json& rows) {
  fmt::print("\n{:=<78}\nsummary: tplab's Comm against raw MPI on messages of 1 MiB and more\n",
             "");
  fmt::print("  {:<15} {:>5} {:>6} {:>16} {:>16} {:>8}\n", "collective", "ranks", "sizes",
             "median overhead", "worst overhead", "#wrong");
  std::map<std::pair<int, std::string>, std::vector<double>> overheads;
  std::map<std::pair<int, std::string>, std::int64_t> wrong;
  for (const auto& r : rows) {
    const auto key = std::pair{r["ranks"].get<int>(), r["collective"].get<std::string>()};
    wrong[key] += r["wrong"].get<std::int64_t>();
    if (r["bytes"].get<std::int64_t>() >= kLargeMessage) {
      overheads[key].push_back(r["overhead"].get<double>());
    }
  }
  for (const auto& [key, total] : wrong) {
    const auto& o = overheads[key];
    const std::string note = bench::oversubscribed(key.first) ? "  oversubscribed" : "";
    if (o.empty()) {
      fmt::print("  {:<15} {:>5} {:>6} {:>16} {:>16} {:>8}{}\n", key.second, key.first, 0, "-", "-",
                 total, note);
      continue;
    }
    const bench::Spread s = bench::spread_of(o);
    fmt::print("  {:<15} {:>5} {:>6} {:>+15.1f}% {:>+15.1f}% {:>8}{}\n", key.second, key.first,
               o.size(), s.median * 100, s.max * 100, total, note);
  }
}

/// Whether every row's result equals the exact sum.
bool exact(const nlohmann::json& rows) {
  for (const auto& r : rows) {
    if (r["wrong"].get<std::int64_t>() != 0) return false;
  }
  return true;
}

int drive_comm(const CLI::App& command, const CommOptions& o) {
  validate(o);
  LaunchPlan plan;
  plan.tensors = "the input and output buffers of the largest message";
  plan.smaller = "a smaller --max-bytes";
  plan.key = "rows";
  for (int np : o.np) {
    plan.jobs.push_back(
        {.label = "bench comm",
         .np = np,
         .overrides = {},
         .bytes_per_rank = bench::collective_bench_bytes_per_rank(config_of(o), np)});
  }
  const SeriesResult series = launch_jobs(command, o.launch, plan, [](const SeriesResult& s) {
    return series_document("rows", s.runs, s, exact(s.runs));
  });
  for (const auto& f : series.failures) fmt::print("{}\n", f.describe());
  if (series.runs.empty()) return exit_code_of(series, false);
  print_summary(series.runs);
  const bool all_exact = exact(series.runs);
  if (!all_exact) fmt::print("\nFAILED: some results differ from the exact sums (#wrong)\n");
  return exit_code_of(series, all_exact);
}

}  // namespace

void add_bench_comm_command(CLI::App& bench, int& exit_code) {
  auto o = std::make_shared<CommOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "comm",
      "Collective micro-benchmark in nccl-tests' form: time, algbw, busbw and an exact check "
      "per collective and message size, with the same MPI call timed on the same buffers");
  cmd->add_option("--collective", o->collectives,
                  "all_reduce, all_gather, reduce_scatter, broadcast, reduce")
      ->delimiter(',')
      ->capture_default_str();
  add_np_option(*cmd, o->np, "2");
  cmd->add_option("--min-bytes", o->min_bytes, "smallest message (8, 1K, 4MiB ...)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  cmd->add_option("--max-bytes", o->max_bytes, "largest message; sizes double from the smallest")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  add_dtype_option(*cmd, o->dtype, "; bench comm moves f32 or f64");
  add_warmup_option(*cmd, o->warmup, "samples of each path");
  add_launch_options(*cmd, o->launch, "the rows (job by job, as they finish)");
  run_over_mpi(
      *cmd, exit_code,
      [o] {
        WorldSetup setup = WorldSetup::for_job(o->np, o->launch.json);
        setup.key = "rows";
        return run_in_world(setup, [&](World& w) { return comm_in_world(*o, w); });
      },
      [o, cmd] { return drive_comm(*cmd, *o); });
}

}  // namespace tplab::app
