#include "step_timer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "flops.hpp"
#include "harness.hpp"
#include "kept_bytes.hpp"
#include "mesh/mesh_layout.hpp"
#include "problem.hpp"
#include "process_resources.hpp"
#include "rank_cost.hpp"
#include "rank_measures.hpp"
#include "rank_shards.hpp"
#include "reference_bridge.hpp"
#include "registry/make_scheme.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// What a traced step says of itself: its series ("step", "overlap off", "overlap on"), its
/// index and whether it is timed (not warm-up); tplab report groups the timed ones by series.
nlohmann::json step_args(const char* series, int index, bool timed) {
  return {{"series", series}, {"index", index}, {"timed", timed}};
}

/// Cuts this rank's shards out of the global inputs, which every rank draws whole (f64) and
/// which are freed on return, so that they do not count in the memory of a step.
verify::RankShards make_shards(const Scheme& scheme, Comm& world, Device& device,
                               const StepConfig& config) {
  const verify::HostArrays inputs =
      verify::make_inputs(config.shape, config.seed, Workload::block, verify::Values::real);
  return verify::shard_for_rank(device, inputs,
                                scheme.placements(world.size(), config.shape, Workload::block),
                                world.rank(), config.dtype);
}

template <typename T>
Spread time_reference(const StepConfig& config, const verify::HostArrays& inputs) {
  const reference::BlockParams<T> params = verify::to_reference_params<T>(inputs);
  const reference::Matrix<T> x = verify::to_reference_matrix<T>(inputs.at("x"));
  const reference::Matrix<T> dy = verify::to_reference_matrix<T>(inputs.at("dy"));
  const reference::Shape shape{config.shape.b, config.shape.s, config.shape.h, config.shape.heads};
  std::vector<double> samples;
  for (int i = 0; i < config.warmup + config.repeats; ++i) {
    const auto start = Clock::now();
    const auto result = reference::block_forward_backward(shape, x, params, dy);
    if (i >= config.warmup) samples.push_back(seconds_since(start));
  }
  return spread_of(samples);
}

/// One more step of `module`, untimed, measured: what the rank holds by kind, beside the cost
/// model's. x is a copy of the step's own, so that only the module holds it once forward has
/// run. Collective.
verify::MemoryBreakdown measure_memory(Comm& world, Device& device, const StepConfig& config,
                                       ParallelModule& module, const verify::RankShards& shards) {
  const model::RankCost cost =
      model::rank_cost(config.scheme, config.options, world.size(), config.shape, Workload::block);
  const auto bytes = [&](std::int64_t elements) {
    return elements * static_cast<std::int64_t>(dtype_size(config.dtype));
  };
  Tensor x = device.empty(shards.x.extents(), shards.x.dtype());
  device.copy(shards.x, x);
  device.synchronize();
  device.allocations().reset_peak();
  const auto kept =
      static_cast<std::int64_t>(verify::forward_and_measure_kept(device, module, std::move(x)));
  module.backward(shards.dy);
  device.synchronize();
  verify::MemoryBreakdown memory;
  memory.parameters = {verify::tensor_bytes(shards.parameters), bytes(cost.parameter_elements)};
  memory.gradients = {verify::tensor_bytes(module.gradients()), bytes(cost.parameter_elements)};
  memory.optimizer = {0, 0};
  memory.activations = {kept, bytes(cost.activation_elements_of(world.rank()))};
  memory.peak_allocated = static_cast<std::int64_t>(device.allocations().peak_bytes());
  memory.peak_resident = peak_resident_bytes();
  return verify::largest_over_ranks(world, memory);
}

}  // namespace

double step_bytes_per_rank(const StepConfig& config, int world_size, int modules) {
  const BlockShape& s = config.shape;
  const double m = static_cast<double>(s.tokens()), h = static_cast<double>(s.h);
  // x and dy [m, h], 12 h^2 weights and 13 h biases and LayerNorm parameters
  const double inputs = 8.0 * (2.0 * m * h + 12.0 * h * h + 13.0 * h);
  const model::RankCost cost =
      model::rank_cost(config.scheme, config.options, world_size, s, Workload::block);
  const double module = static_cast<double>(dtype_size(config.dtype)) *
                        (3.0 * static_cast<double>(cost.parameter_elements) +
                         2.0 * static_cast<double>(cost.activation_elements));
  return inputs + modules * module;
}

Spread spread_of(std::vector<double> samples) {
  check(!samples.empty(), "no samples");
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  const double median = n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return {median, samples.front(), samples.back()};
}

void StepSamples::add(Comm& world, const RankStep& step) {
  wall_seconds_ += step.seconds;
  cpu_seconds_ += step.cpu_seconds;
  steps_.push_back(max_over_ranks(world, step.seconds));
  comms_.push_back(max_over_ranks(world, step.comm_seconds));
  comms_least_.push_back(-max_over_ranks(world, -step.comm_seconds));
  exposed_.push_back(max_over_ranks(world, step.exposed_seconds));
  dp_comms_.push_back(max_over_ranks(world, step.dp_seconds));
  scheme_comms_.push_back(
      max_over_ranks(world, step.comm_seconds - step.dp_seconds - step.other_seconds));
}

void StepSamples::count(const CommCounters& counters) {
  bytes_ = counters.total_bytes();
  bus_bytes_ = bus_bytes_of(counters);
  dp_bytes_ = counters.group_totals(kDataParallelGroup).bytes;
}

void StepSamples::fill(Comm& world, std::int64_t tokens, bool peak_reset, StepTiming& t) const {
  t.step_seconds = spread_of(steps_);
  t.comm_seconds = spread_of(comms_);
  t.comm_seconds_least = spread_of(comms_least_);
  t.exposed_seconds = spread_of(exposed_);
  t.dp_comm_seconds = spread_of(dp_comms_);
  t.scheme_comm_seconds = spread_of(scheme_comms_);
  t.comm_share = t.comm_seconds.median / t.step_seconds.median;
  t.bytes_per_rank = static_cast<std::int64_t>(max_over_ranks(world, static_cast<double>(bytes_)));
  t.dp_bytes_per_rank =
      static_cast<std::int64_t>(max_over_ranks(world, static_cast<double>(dp_bytes_)));
  t.bus_bytes_per_rank = max_over_ranks(world, bus_bytes_);
  t.gflops_per_second = t.flops / t.step_seconds.median / 1e9;
  t.tokens_per_second = static_cast<double>(tokens) / t.step_seconds.median;
  t.peak_memory_bytes =
      static_cast<std::int64_t>(max_over_ranks(world, static_cast<double>(peak_resident_bytes())));
  t.peak_memory_from_start = max_over_ranks(world, peak_reset ? 0.0 : 1.0) > 0;
  t.cpu_share = -max_over_ranks(world, -cpu_seconds_ / wall_seconds_);  // the smallest share
}

StepTiming time_step(Comm& world, Device& device, const StepConfig& config) {
  if (config.repeats < 1 || config.warmup < 0) {
    throw UsageError("--repeats must be at least 1 and --warmup at least 0");
  }
  const auto scheme = make_scheme(config.scheme, config.options);
  scheme->validate(world.size(), config.shape);
  const verify::RankShards shards = make_shards(*scheme, world, device, config);
  auto module =
      scheme->make_module(world, device, config.shape, Workload::block, shards.parameters);
  // From here on the rank holds only what a training step needs: measure its memory from now.
  const bool reset = reset_peak_resident();

  StepSamples samples;
  for (int i = 0; i < config.warmup + config.repeats; ++i) {
    world.barrier();
    world.counters().reset();
    const double cpu_start = process_cpu_seconds();
    TraceScope traced(device.trace(), fmt::format("step {}", i), "step",
                      step_args("step", i, i >= config.warmup));
    const auto start = Clock::now();
    module->forward(shards.x);
    module->backward(shards.dy);
    const double step = seconds_since(start);
    traced.close();
    const CommCounters& counters = world.counters();
    samples.count(counters);
    if (i < config.warmup) continue;
    samples.add(world, {.seconds = step,
                        .cpu_seconds = process_cpu_seconds() - cpu_start,
                        .comm_seconds = counters.total_seconds(),
                        .exposed_seconds = counters.total_exposed_seconds(),
                        .dp_seconds = counters.group_totals(kDataParallelGroup).seconds});
  }
  StepTiming t;
  t.config = config;
  t.world_size = world.size();
  t.grid = scheme->describe_grid(world.size(), config.shape);
  t.flops = model::block_step_flops(config.shape);
  samples.fill(world, config.shape.tokens(), reset, t);
  t.memory = measure_memory(world, device, config, *module, shards);
  return t;
}

OverlapComparison compare_overlap(Comm& world, Device& device, const StepConfig& config) {
  if (config.repeats < 1 || config.warmup < 0) {
    throw UsageError("--repeats must be at least 1 and --warmup at least 0");
  }
  SchemeOptions options = config.options;
  options.overlap = false;
  const auto blocking = make_scheme(config.scheme, options);
  options.overlap = true;
  const auto overlapping = make_scheme(config.scheme, options);
  blocking->validate(world.size(), config.shape);
  const verify::RankShards shards = make_shards(*blocking, world, device, config);
  std::unique_ptr<ParallelModule> modules[2] = {
      blocking->make_module(world, device, config.shape, Workload::block, shards.parameters),
      overlapping->make_module(world, device, config.shape, Workload::block, shards.parameters)};
  std::vector<double> steps[2], exposed[2];
  for (int i = 0; i < config.warmup + config.repeats; ++i) {
    for (int on = 0; on < 2; ++on) {
      world.barrier();
      world.counters().reset();
      const char* series = on == 1 ? "overlap on" : "overlap off";
      TraceScope traced(device.trace(), fmt::format("{} step {}", series, i), "step",
                        step_args(series, i, i >= config.warmup));
      const auto start = Clock::now();
      modules[on]->forward(shards.x);
      modules[on]->backward(shards.dy);
      const double step = seconds_since(start);
      traced.close();
      const double blocked = world.counters().total_exposed_seconds();
      if (i < config.warmup) continue;
      steps[on].push_back(max_over_ranks(world, step));
      exposed[on].push_back(max_over_ranks(world, blocked));
    }
  }
  return {spread_of(steps[0]), spread_of(steps[1]), spread_of(exposed[0]), spread_of(exposed[1])};
}

RecomputeComparison compare_recompute(Comm& world, Device& device, const StepConfig& config) {
  if (config.repeats < 1 || config.warmup < 0) {
    throw UsageError("--repeats must be at least 1 and --warmup at least 0");
  }
  constexpr std::array<Recompute, RecomputeComparison::kModes> modes = {
      Recompute::none, Recompute::selective, Recompute::full};
  std::vector<std::unique_ptr<Scheme>> schemes;
  for (Recompute mode : modes) {
    SchemeOptions options = config.options;
    options.training.recompute = mode;
    schemes.push_back(make_scheme(config.scheme, options));
  }
  schemes.front()->validate(world.size(), config.shape);
  const verify::RankShards shards = make_shards(*schemes.front(), world, device, config);
  std::vector<std::unique_ptr<ParallelModule>> blocks;
  for (const auto& scheme : schemes) {
    blocks.push_back(
        scheme->make_module(world, device, config.shape, Workload::block, shards.parameters));
  }
  RecomputeComparison out;
  std::array<std::vector<double>, RecomputeComparison::kModes> steps;
  for (int i = 0; i < config.warmup + config.repeats; ++i) {
    for (std::size_t k = 0; k < modes.size(); ++k) {
      // a copy of x of the step's own, which only the block holds once forward has run
      Tensor x = device.empty(shards.x.extents(), shards.x.dtype());
      device.copy(shards.x, x);
      world.barrier();
      const std::string series(recompute_name(modes[k]));
      TraceScope traced(device.trace(), fmt::format("recompute {} step {}", series, i), "step",
                        step_args(series.c_str(), i, i >= config.warmup));
      device.allocations().reset_peak();
      const std::size_t before = device.allocations().live_bytes();
      const auto start = Clock::now();
      const std::size_t kept = verify::forward_and_measure_kept(device, *blocks[k], std::move(x));
      blocks[k]->backward(shards.dy);
      device.synchronize();
      const double step = seconds_since(start);
      traced.close();
      const std::size_t peak = device.allocations().peak_bytes() - before;
      if (i < config.warmup) continue;
      steps[k].push_back(max_over_ranks(world, step));
      out.kept_bytes[k] =
          static_cast<std::int64_t>(max_over_ranks(world, static_cast<double>(kept)));
      out.peak_bytes[k] =
          static_cast<std::int64_t>(max_over_ranks(world, static_cast<double>(peak)));
    }
  }
  for (std::size_t k = 0; k < modes.size(); ++k) {
    out.step[k] = spread_of(steps[k]);
    out.flops[k] =
        model::block_step_flops(config.shape) + model::recompute_flops(config.shape, modes[k]);
    SchemeOptions options = config.options;
    options.training.recompute = modes[k];
    out.model_kept_bytes[k] =
        model::rank_cost(config.scheme, options, world.size(), config.shape, Workload::block)
            .activation_elements *
        static_cast<std::int64_t>(dtype_size(config.dtype));
  }
  return out;
}

Spread time_reference_step(const StepConfig& config) {
  const verify::HostArrays inputs =
      verify::make_inputs(config.shape, config.seed, Workload::block, verify::Values::real);
  if (config.dtype == DType::f64) return time_reference<double>(config, inputs);
  if (config.dtype == DType::f32) return time_reference<float>(config, inputs);
  throw UsageError("the reference computes in f64 or f32");
}

}  // namespace tplab::bench
