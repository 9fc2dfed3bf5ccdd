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

  bool transfers_differ = false;  // from what the model says this rank moves between stages
  StepSamples samples;
  std::vector<double> pp_comms;
  std::vector<std::vector<double>> idle(static_cast<std::size_t>(mesh.stages));
  std::int64_t pp_bytes = 0, kept = 0;
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
    // the step's counters, read before anything below adds collectives of its own
    const CommCounters& counters = world.counters();
    const GroupTotals pp = counters.group_totals(kPipelineGroup);
    samples.count(counters);
    pp_bytes = pp.bytes;
    transfers_differ =
        transfers_differ || train::transfers_counted(counters) != gpt.modelled_transfers();
    kept = std::max(kept, record.kept_bytes);
    // the transfers between stages are started and run while the stage computes: only the
    // time a rank was blocked on them (a receive, the sends' end) is communication's
    const RankStep timed{.seconds = step,
                         .cpu_seconds = process_cpu_seconds() - cpu_start,
                         .comm_seconds = counters.total_seconds() - pp.seconds + pp.exposed_seconds,
                         .exposed_seconds = counters.total_exposed_seconds(),
                         .dp_seconds = counters.group_totals(kDataParallelGroup).seconds,
                         .other_seconds = pp.exposed_seconds};
    const std::vector<double> shares = train::stage_idle_shares(world, mesh, record);
    if (i < config.warmup) continue;
    samples.add(world, timed);
    pp_comms.push_back(max_over_ranks(world, pp.exposed_seconds));
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
  t.flops = train::model_flops_per_step(c);
  samples.fill(world, c.shape.block.tokens(), reset, t);
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
  out.model_pp_bytes_per_rank = static_cast<std::int64_t>(
      max_over_ranks(world, static_cast<double>(gpt.modelled_transfers().bytes)));
  out.pp_transfers_as_modelled = max_over_ranks(world, transfers_differ ? 1.0 : 0.0) == 0;
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
