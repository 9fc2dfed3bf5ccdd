#include "harness.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>

#include "attention_scores.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "kept_bytes.hpp"
#include "layers/finite_check.hpp"
#include "problem.hpp"
#include "rank_cost.hpp"
#include "rank_verdict.hpp"
#include "registry/make_scheme.hpp"

namespace tplab::verify {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Integer inputs keep every sum exact only while partial sums stay below 2^24 (f32's
/// integer range). The largest |value| of the reference outputs bounds every partial sum.
void require_exact_range(const HostArrays& reference, DType dtype) {
  const double limit = dtype == DType::f64 ? 0x1.0p53 : 0x1.0p24;
  for (const auto& [name, array] : reference) {
    double largest = 0;
    for (double v : array.values) largest = std::max(largest, std::abs(v));
    if (largest >= limit) {
      throw UsageError(fmt::format(
          "--exact: {} reaches {:.0f}, beyond the integers {} represents exactly; use a smaller "
          "shape (fewer tokens or a smaller hidden size)",
          name, largest, dtype_name(dtype)));
    }
  }
}

/// Ranks that hold the same block of a tensor must hold the same bits: a replicated input, a
/// gradient summed over a group, or an output of an all-reduce. Compares the ranks' hashes
/// block by block and names the first block whose replicas differ.
template <typename PackedOf>
void compare_replicas(TensorCheck& c, const TensorPlacement& placement, const PackedOf& packed_of) {
  std::vector<bool> seen(placement.blocks.size(), false);
  for (std::size_t first = 0; first < placement.blocks.size(); ++first) {
    const BlockRange& block = placement.blocks[first];
    // a rank of another pipeline stage holds none of it
    if (seen[first] || block.rows * block.cols == 0) continue;
    std::vector<int> holders;
    for (std::size_t r = first; r < placement.blocks.size(); ++r) {
      if (placement.blocks[r] == placement.blocks[first]) {
        holders.push_back(static_cast<int>(r));
        seen[r] = true;
      }
    }
    c.replicas = std::max(c.replicas, static_cast<int>(holders.size()));
    const std::uint64_t expected = packed_hash(packed_of(holders.front()));
    for (int r : holders) {
      if (packed_hash(packed_of(r)) != expected && c.replicas_differ.empty()) {
        c.replicas_differ =
            fmt::format("ranks {} hold one block ({})", fmt::join(holders, ","), placement.rule);
        c.replica_first = holders.front();
        c.replica_other = r;
      }
    }
  }
}

/// The largest |a - b| between the shards of ranks `first` and `other`, which hold the same
/// block. Every rank takes part (padding its shard to the largest block of the placement).
double replica_difference(Comm& world, const std::vector<double>& mine,
                          const TensorPlacement& placement, int first, int other) {
  std::int64_t largest = 0;
  for (const BlockRange& b : placement.blocks) largest = std::max(largest, b.rows * b.cols);
  CpuDevice host;
  Tensor padded = host.zeros({largest}, DType::f64);
  std::copy(mine.begin(), mine.end(), padded.data_as<double>());
  Tensor all = host.empty({world.size() * largest}, DType::f64);
  world.all_gather(padded, all);
  const double* a = all.data_as<double>() + first * largest;
  const double* b = all.data_as<double>() + other * largest;
  double worst = 0;
  for (std::int64_t i = 0; i < largest; ++i) {
    const double d = std::abs(a[i] - b[i]);
    if (!(d <= worst)) worst = d;  // a NaN is kept, where std::max drops it
  }
  return worst;
}

/// Every element of `t`, read back from `device` as f64.
std::vector<double> read_back(Device& device, const Tensor& t) {
  std::vector<double> values(static_cast<std::size_t>(t.numel()));
  device.download(t, values);
  return values;
}

/// The largest of every rank's `bytes`; a value that arrives broken is a fault of `verdict`
/// (and 0 is returned).
std::size_t most_over_ranks(Comm& world, std::size_t bytes, RankVerdict& verdict) {
  CpuDevice host;
  Tensor most = host.empty({1}, DType::f64);
  host.fill(most, static_cast<double>(bytes));
  world.all_reduce(most, ReduceOp::max);
  const double value = most.data_as<double>()[0];
  if (std::isfinite(value) && value >= 0) return static_cast<std::size_t>(value);
  verdict.faults.push_back(fmt::format("the kept bytes reduced over the ranks are {}", value));
  return 0;
}

/// This rank's verdict on the tensors it merged, with every fault in their findings.
RankVerdict tensors_verdict(const std::vector<TensorCheck>& tensors) {
  RankVerdict v;
  v.checks_pass = true;
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    v.checks_pass = v.checks_pass && tensors[t].pass;
    if (tensors[t].checker_fault.empty()) continue;
    if (v.first_faulty_tensor < 0) v.first_faulty_tensor = static_cast<int>(t);
    v.faults.push_back(fmt::format("{}: {}", tensors[t].name, tensors[t].checker_fault));
  }
  return v;
}

}  // namespace

double verify_bytes_per_rank(const BlockShape& shape) {
  const double m = static_cast<double>(shape.tokens()), h = static_cast<double>(shape.h);
  const double scores = static_cast<double>(shape.b * shape.heads) * static_cast<double>(shape.s) *
                        static_cast<double>(shape.s);
  // activations of [m, h] and [m, 4h] kept and produced (about 30 m h), parameters and their
  // gradients twice over (24 h^2 each), attention scores, probabilities and their gradients
  return 8.0 * (30.0 * m * h + 50.0 * h * h + 3.0 * scores);
}

std::vector<std::string> checked_tensors(Workload workload) {
  std::vector<std::string> names = {"y", "dx"};
  if (workload == Workload::block) {
    for (auto p : kBlockParameters) names.push_back(gradient_name(p));
  } else {
    for (auto p : kLinearPairParameters) names.push_back(gradient_name(p));
  }
  return names;
}

std::vector<TensorCheck> compare_shards(Comm& world, const std::vector<ShardToCheck>& shards) {
  const int rank = world.rank();
  CpuDevice host;
  Tensor packed = host.empty({static_cast<std::int64_t>(shards.size() * kCheckFields)}, DType::f64);
  double* slot = packed.data_as<double>();
  std::vector<TensorCheck> local;
  for (const ShardToCheck& s : shards) {
    local.push_back(check_shard(s.name, *s.reference,
                                s.placement->blocks.at(static_cast<std::size_t>(rank)), s.got,
                                s.tolerance, s.scale));
    for (double v : pack(local.back())) *slot++ = v;
  }
  Tensor all = host.empty({world.size() * packed.numel()}, DType::f64);
  world.all_gather(packed, all);

  std::vector<TensorCheck> merged_checks;
  for (std::size_t t = 0; t < shards.size(); ++t) {
    TensorCheck merged;
    merged.name = local[t].name;
    merged.global = local[t].global;
    merged.atol = local[t].atol;
    merged.rtol = local[t].rtol;
    merged.max_rel_l2 = local[t].max_rel_l2;
    merged.hash = local[t].hash;
    const auto packed_of = [&](int r) {
      return std::span<const double>(
          all.data_as<double>() + (static_cast<std::size_t>(r) * shards.size() + t) * kCheckFields,
          kCheckFields);
    };
    const std::vector<BlockRange>& blocks = shards[t].placement->blocks;
    std::vector<std::uint64_t> rank_hashes;
    for (int r = 0; r < world.size(); ++r) {
      const auto mine = blocks.begin() + r;
      merge(merged, packed_of(r), std::find(blocks.begin(), mine, *mine) == mine, r);
      rank_hashes.push_back(packed_hash(packed_of(r)));
    }
    merged.fingerprint = fingerprint_of(rank_hashes);
    compare_replicas(merged, *shards[t].placement, packed_of);
    if (!merged.replicas_differ.empty()) {  // known alike on every rank: all take part
      merged.replica_difference = replica_difference(world, shards[t].got, *shards[t].placement,
                                                     merged.replica_first, merged.replica_other);
    }
    finish(merged);
    merged_checks.push_back(std::move(merged));
  }
  return merged_checks;
}

namespace {

/// Refuses, identically on every rank, an input regime whose tolerance was not measured for it.
void require_measured_regime(const RunConfig& config) {
  if (config.exact) return;  // integer inputs: no regime applies
  if (config.shifted_input &&
      (config.dtype != DType::f64 || config.shape.h < kShiftedInputMinHidden)) {
    throw UsageError(fmt::format(
        "x far from zero is checked in f64 with h >= {}, where f64's tolerance holds for "
        "correct code; got {} with h = {}",
        kShiftedInputMinHidden, dtype_name(config.dtype), config.shape.h));
  }
  if (config.large_scores && config.dtype == DType::bf16) {
    throw UsageError(
        "attention scores past exp's overflow point are checked in f64 and f32: bf16 keeps 8 "
        "bits of a score, so one past 88 is off by up to 0.17 and its exponential by 19%");
  }
}

/// The run's global inputs: drawn from the seed as its regime says.
HostArrays make_run_inputs(const RunConfig& config, Workload workload) {
  const Values values = config.exact           ? Values::integer
                        : config.shifted_input ? Values::shifted
                                               : Values::real;
  HostArrays inputs = make_inputs(config.shape, config.seed, workload, values);
  if (config.large_scores && !config.exact) {
    raise_attention_scores(config.shape, inputs,
                           kScoreReachOverOverflow * exp_overflow_point(config.dtype));
  }
  return inputs;
}

/// The same block with Recompute::none, on the run's `inputs` cut by its `placements`: the
/// first of this rank's outputs and gradients whose bits differ from `got` (the recomputing
/// run's), or empty when none does. Collective over `world`.
std::string first_bitwise_difference(Comm& world, Device& device, const RunConfig& config,
                                     const HostArrays& inputs,
                                     const std::vector<TensorPlacement>& placements,
                                     const std::map<std::string, std::vector<double>>& got) {
  SchemeOptions keeping = config.options;
  keeping.training.recompute = Recompute::none;
  const auto scheme = make_scheme(config.scheme, keeping);
  RankShards mine = shard_for_rank(device, inputs, placements, world.rank(), config.dtype);
  auto module =
      scheme->make_module(world, device, config.shape, Workload::block, std::move(mine.parameters));
  std::map<std::string, std::vector<double>> kept{
      {"y", read_back(device, module->forward(mine.x))}};
  const Tensor dx = module->backward(mine.dy);
  TensorMap outputs = module->gradients();
  outputs.emplace("dx", dx);
  for (const auto& [name, tensor] : outputs) kept.emplace(name, read_back(device, tensor));
  for (const auto& [name, values] : got) {
    const auto other = kept.find(name);
    if (other == kept.end() || other->second.size() != values.size() ||
        std::memcmp(values.data(), other->second.data(), values.size() * sizeof(double)) != 0) {
      return name;
    }
  }
  return {};
}

}  // namespace

RunResult run_verification(Comm& world, Device& device, const RunConfig& config) {
  // Decide everything that can fail before the first collective, on every rank alike.
  const auto scheme = make_scheme(config.scheme, config.options);
  scheme->validate(world.size(), config.shape);
  require_measured_regime(config);
  const Workload workload = config.exact ? Workload::linear_pair : Workload::block;
  const HostArrays inputs = make_run_inputs(config, workload);
  const HostArrays reference =
      reference_outputs(config.shape, inputs, workload, config.options.training.dropout);
  if (config.exact) require_exact_range(reference, config.dtype);
  const std::vector<TensorPlacement> placements =
      scheme->placements(world.size(), config.shape, workload);
  const model::RankCost cost =
      model::rank_cost(config.scheme, config.options, world.size(), config.shape, workload);
  const model::CommPrediction& predicted = cost.comm;
  const int rank = world.rank();
  set_check_finite(config.check_finite);

  RankShards mine = shard_for_rank(device, inputs, placements, rank, config.dtype);
  auto module =
      scheme->make_module(world, device, config.shape, workload, std::move(mine.parameters));

  RunResult result;
  result.config = config;
  result.world_size = world.size();
  result.grid = scheme->describe_grid(world.size(), config.shape);
  if (config.large_scores && !config.exact) {
    result.largest_score = largest_attention_score(config.shape, inputs);
  }
  result.backend = fmt::format("{}/{}", device_name(device.kind()), world.transport());
  CommCounters& counters = world.counters();

  counters.reset();
  device.synchronize();  // a GPU may still be uploading; time the forward pass alone
  const KeptBytesProbe probe(device, mine.x);
  auto start = Clock::now();
  Tensor y = module->forward(mine.x);
  device.synchronize();
  result.forward_seconds = seconds_since(start);
  result.comm_forward = counters.snapshot();
  // y read back, then only the module's own handles left: what is live is what it keeps
  std::map<std::string, std::vector<double>> got{{"y", read_back(device, y)}};
  y = Tensor();
  mine.x = Tensor();
  result.saved_bytes = probe.kept_bytes();

  counters.reset();
  start = Clock::now();
  const Tensor dx = module->backward(mine.dy);
  device.synchronize();
  result.backward_seconds = seconds_since(start);
  result.comm_backward = counters.snapshot();
  result.comm = model::check_comm(result.comm_forward, result.comm_backward, predicted);

  TensorMap outputs = module->gradients();
  outputs.emplace("dx", dx);
  for (const auto& [name, tensor] : outputs) got.emplace(name, read_back(device, tensor));
  if (config.options.training.recompute != Recompute::none && !config.exact) {
    result.recompute_first_difference =
        first_bitwise_difference(world, device, config, inputs, placements, got);
  }

  // Compare shards locally, then let every rank merge every rank's findings.
  const Tolerance tolerance = tolerance_for(config.dtype, config.exact);
  std::vector<ShardToCheck> shards;
  for (const std::string& name : checked_tensors(workload)) {
    const auto found = got.find(name);
    check(found != got.end(), fmt::format("scheme {} produced no '{}'", config.scheme, name));
    ShardToCheck shard{name,
                       &reference.at(name),
                       &find_placement(placements, name),
                       std::move(found->second),
                       tolerance,
                       rms(reference.at(name).values)};
    if (const ZeroGradient* zero = zero_gradient(name); zero != nullptr && !config.exact) {
      shard.scale = rms(reference.at(std::string(zero->scale_from)).values);
      shard.tolerance.max_rel_l2 = INFINITY;
    }
    shards.push_back(std::move(shard));
  }
  result.tensors = compare_shards(world, shards);
  RankVerdict mine_verdict = tensors_verdict(result.tensors);
  result.saved_bytes_model =
      static_cast<std::size_t>(cost.activation_elements) * dtype_size(config.dtype);
  const auto holds = [&](Property p) -> bool& {
    return mine_verdict.holds[static_cast<std::size_t>(p)];
  };
  holds(Property::comm) = result.comm.match;
  holds(Property::kept) =
      result.saved_bytes ==
      static_cast<std::size_t>(cost.activation_elements_of(rank)) * dtype_size(config.dtype);
  holds(Property::recompute) = result.recompute_first_difference.empty();
  result.saved_bytes = most_over_ranks(world, result.saved_bytes, mine_verdict);

  // Every rank checked its own properties and merged the findings; agree on the verdict.
  const AgreedVerdict agreed = agree_on_verdict(world, mine_verdict, checked_tensors(workload));
  result.properties = agreed.properties;
  result.checker_faults = agreed.faults;
  result.pass = agreed.pass;
  return result;
}

}  // namespace tplab::verify
