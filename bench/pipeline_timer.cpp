#include "pipeline_timer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "initial_parameters.hpp"
#include "mesh/mesh_layout.hpp"
#include "pipeline/stage_actions.hpp"
#include "pipelined_gpt.hpp"
#include "process_resources.hpp"
#include "rank_measures.hpp"
#include "trace/trace_recorder.hpp"
#include "training_data.hpp"

namespace tplab::bench {
namespace {

using Clock = std::chrono::steady_clock;

/// The largest of each stage's values.
std::vector<double> stage_maxima(const std::vector<std::vector<double>>& by_stage) {
  std::vector<double> out;
  for (const auto& stage : by_stage) out.push_back(*std::max_element(stage.begin(), stage.end()));
  return out;
}

}  // namespace

double pipeline_step_bytes_per_rank(const PipelineStepConfig& config) {
  return train::training_bytes_per_rank(config.train) / 2;
}

PipelineTiming time_pipeline_step(Comm& world, Device& device, const PipelineStepConfig& config) {
  if (config.repeats < 1 || config.warmup < 0) {
    throw UsageError("--repeats must be at least 1 and --warmup at least 0");
  }
  const train::TrainConfig& c = config.train;
  train::validate_training(world.size(), c);
  train::PipelinedGpt gpt(world, device, c,
                          train::initial_parameters(c.shape, c.seed, c.logit_offset));
  const MeshLayout& mesh = gpt.mesh();
  // From here on the rank holds only what a training step needs: measure its memory from now.
  const bool reset = reset_peak_resident();

  std::vector<double> steps, comms, comms_least, exposed, dp_comms, pp_comms, scheme_comms;
  std::vector<std::vector<double>> idle(static_cast<std::size_t>(mesh.stages));
  std::int64_t bytes = 0, dp_bytes = 0, pp_bytes = 0, kept = 0;
  double bus_bytes = 0, wall_seconds = 0, cpu_seconds = 0;
  device.allocations().reset_peak();
  for (int i = 0; i < config.warmup + config.repeats; ++i) {
    const train::Batch batch = train::synthetic_batch(c.shape, c.seed, i);
    world.barrier();
    world.counters().reset();
    const double cpu_start = process_cpu_seconds();
    TraceScope traced(device.trace(), fmt::format("step {}", i), "step",
                      {{"series", "step"}, {"index", i}, {"timed", i >= config.warmup}});
    const auto start = Clock::now();
    const pipeline::StageStepRecord record = gpt.step(batch, i);
    device.synchronize();
    const double step = std::chrono::duration<double>(Clock::now() - start).count();
    traced.close();
    const double cpu = process_cpu_seconds() - cpu_start;
    const CommCounters& counters = world.counters();
    const GroupShare dp = group_share(counters, kDataParallelGroup);
    const GroupShare pp = group_share(counters, kPipelineGroup);
    // the transfers between stages are started and run while the stage computes: only the
    // time a rank was blocked on them (a receive, the sends' end) is communication's
    const double comm = counters.total_seconds() - pp.seconds + pp.exposed_seconds;
    const double blocked = counters.total_exposed_seconds();
    bytes = counters.total_bytes();
    bus_bytes = bus_bytes_of(counters);
    dp_bytes = dp.bytes;
    pp_bytes = pp.bytes;
    kept = std::max(kept, record.kept_bytes);
    const std::vector<double> shares = train::stage_idle_shares(world, mesh, record);
    if (i < config.warmup) continue;
    wall_seconds += step;
    cpu_seconds += cpu;
    steps.push_back(max_over_ranks(world, step));
    comms.push_back(max_over_ranks(world, comm));
    comms_least.push_back(-max_over_ranks(world, -comm));
    exposed.push_back(max_over_ranks(world, blocked));
    dp_comms.push_back(max_over_ranks(world, dp.seconds));
    pp_comms.push_back(max_over_ranks(world, pp.exposed_seconds));
    scheme_comms.push_back(max_over_ranks(world, comm - dp.seconds - pp.exposed_seconds));
    for (std::size_t s = 0; s < shares.size(); ++s) idle[s].push_back(shares[s]);
  }

  PipelineTiming out;
  StepTiming& t = out.step;
  t.config = {.scheme = c.scheme,
              .options = c.options,
              .shape = c.shape.block,
              .dtype = c.dtype,
              .warmup = config.warmup,
              .repeats = config.repeats,
              .seed = c.seed};
  t.world_size = world.size();
  t.grid = train::training_grid(world.size(), c);
  t.step_seconds = spread_of(steps);
  t.comm_seconds = spread_of(comms);
  t.comm_seconds_least = spread_of(comms_least);
  t.exposed_seconds = spread_of(exposed);
  t.dp_comm_seconds = spread_of(dp_comms);
  t.scheme_comm_seconds = spread_of(scheme_comms);
  t.comm_share = t.comm_seconds.median / t.step_seconds.median;
  t.bytes_per_rank = static_cast<std::int64_t>(max_over_ranks(world, static_cast<double>(bytes)));
  t.dp_bytes_per_rank =
      static_cast<std::int64_t>(max_over_ranks(world, static_cast<double>(dp_bytes)));
  t.bus_bytes_per_rank = max_over_ranks(world, bus_bytes);
  t.flops = train::model_flops_per_step(c);
  t.gflops_per_second = t.flops / t.step_seconds.median / 1e9;
  t.tokens_per_second = static_cast<double>(c.shape.block.tokens()) / t.step_seconds.median;
  t.peak_memory_bytes =
      static_cast<std::int64_t>(max_over_ranks(world, static_cast<double>(peak_resident_bytes())));
  t.peak_memory_from_start = max_over_ranks(world, reset ? 0.0 : 1.0) > 0;
  t.cpu_share = -max_over_ranks(world, -cpu_seconds / wall_seconds);  // the smallest share
  verify::MemoryBreakdown memory = gpt.memory(kept, nullptr);
  memory.peak_resident = peak_resident_bytes();
  t.memory = verify::largest_over_ranks(world, memory);

  out.layers = c.shape.layers;
  out.vocab = c.shape.vocab;
  out.padded_vocab = gpt.padded().vocab;
  out.micro_batches = c.options.micro_batches;
  out.schedule = std::string(schedule_name(c.options.schedule));
  out.pp_comm_seconds = spread_of(pp_comms);
  out.pp_bytes_per_rank =
      static_cast<std::int64_t>(max_over_ranks(world, static_cast<double>(pp_bytes)));
  out.bubble_formula = pipeline::bubble_fraction(mesh.stages, c.options.micro_batches);
  const std::vector<double> kept_by_stage =
      stage_maxima(train::values_by_stage(world, mesh, static_cast<double>(kept)));
  const std::vector<double> model_by_stage = stage_maxima(train::values_by_stage(
      world, mesh, static_cast<double>(memory.activations.model.value_or(0))));
  for (int s = 0; s < mesh.stages; ++s) {
    const auto at = static_cast<std::size_t>(s);
    out.stages.push_back({.idle_share = spread_of(idle[at]).median,
                          .kept_bytes = static_cast<std::int64_t>(kept_by_stage[at]),
                          .model_kept_bytes = static_cast<std::int64_t>(model_by_stage[at]),
                          .in_flight = pipeline::most_in_flight(pipeline::stage_actions(
                              c.options.schedule, mesh.stages, s, c.options.micro_batches))});
  }
  return out;
}

}  // namespace tplab::bench
