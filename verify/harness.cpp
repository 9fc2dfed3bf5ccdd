#include "harness.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cmath>

#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "problem.hpp"
#include "rank_cost.hpp"

namespace tplab::verify {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Tensor upload_shard(Device& device, const HostArray& global, const TensorPlacement& placement,
                    int rank, DType dtype) {
  Tensor t = device.empty(placement.local_extents(rank), dtype);
  const std::vector<double> values =
      global.block(placement.blocks.at(static_cast<std::size_t>(rank)));
  device.upload(values, t);
  return t;
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
    if (seen[first]) continue;
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
        c.replicas_differ = fmt::format("ranks {} hold one block, but rank {} differs from rank {}",
                                        fmt::join(holders, ","), r, holders.front());
      }
    }
  }
}

}  // namespace

std::vector<std::string> checked_tensors(Workload workload) {
  std::vector<std::string> names = {"y", "dx"};
  if (workload == Workload::block) {
    for (auto p : kBlockParameters) names.push_back(gradient_name(p));
  } else {
    for (auto p : kLinearPairParameters) names.push_back(gradient_name(p));
  }
  return names;
}

RunResult run_verification(Comm& world, Device& device, const RunConfig& config) {
  // Decide everything that can fail before the first collective, on every rank alike.
  const auto scheme = make_scheme(config.scheme, config.options);
  scheme->validate(world.size(), config.shape);
  const Workload workload = config.exact ? Workload::linear_pair : Workload::block;
  const HostArrays inputs = make_inputs(config.shape, config.seed, workload,
                                        config.exact ? Values::integer : Values::real);
  const HostArrays reference = reference_outputs(config.shape, inputs, workload);
  if (config.exact) require_exact_range(reference, config.dtype);
  const std::vector<TensorPlacement> placements =
      scheme->placements(world.size(), config.shape, workload);
  const model::CommPrediction predicted =
      model::rank_cost(config.scheme, config.options, world.size(), config.shape, workload).comm;
  const int rank = world.rank();

  TensorMap parameters;
  for (const auto& [name, array] : inputs) {
    if (!is_parameter(name)) continue;
    parameters.emplace(
        name, upload_shard(device, array, find_placement(placements, name), rank, config.dtype));
  }
  const Tensor x =
      upload_shard(device, inputs.at("x"), find_placement(placements, "x"), rank, config.dtype);
  const Tensor dy =
      upload_shard(device, inputs.at("dy"), find_placement(placements, "dy"), rank, config.dtype);
  auto module = scheme->make_module(world, device, config.shape, workload, std::move(parameters));

  RunResult result;
  result.config = config;
  result.world_size = world.size();
  result.grid = scheme->describe_grid(world.size(), config.shape);
  result.backend = fmt::format("{}/mpi", device_name(device.kind()));
  CommCounters& counters = world.counters();

  counters.reset();
  auto start = Clock::now();
  const Tensor y = module->forward(x);
  result.forward_seconds = seconds_since(start);
  result.comm_forward = counters.snapshot();

  counters.reset();
  start = Clock::now();
  const Tensor dx = module->backward(dy);
  result.backward_seconds = seconds_since(start);
  result.comm_backward = counters.snapshot();
  result.comm = model::check_comm(result.comm_forward, result.comm_backward, predicted);

  TensorMap outputs = module->gradients();
  outputs.emplace("y", y);
  outputs.emplace("dx", dx);

  // Compare shards locally, then let every rank merge every rank's findings.
  const Tolerance tolerance = tolerance_for(config.dtype, config.exact);
  const std::vector<std::string> names = checked_tensors(workload);
  std::vector<TensorCheck> local;
  CpuDevice host;
  Tensor packed = host.empty({static_cast<std::int64_t>(names.size() * kCheckFields)}, DType::f64);
  double* slot = packed.data_as<double>();
  for (const std::string& name : names) {
    const auto found = outputs.find(name);
    check(found != outputs.end(), fmt::format("scheme {} produced no '{}'", config.scheme, name));
    std::vector<double> got(static_cast<std::size_t>(found->second.numel()));
    device.download(found->second, got);
    const TensorPlacement& placement = find_placement(placements, name);
    Tolerance t = tolerance;
    double scale = rms(reference.at(name).values);
    if (const ZeroGradient* zero = zero_gradient(name); zero != nullptr && !config.exact) {
      scale = rms(reference.at(std::string(zero->scale_from)).values);
      t.max_rel_l2 = INFINITY;
    }
    local.push_back(check_shard(name, reference.at(name),
                                placement.blocks.at(static_cast<std::size_t>(rank)), got, t,
                                scale));
    for (double v : pack(local.back())) *slot++ = v;
  }
  Tensor all = host.empty({world.size() * packed.numel()}, DType::f64);
  world.all_gather(packed, all);

  result.pass = true;
  for (std::size_t t = 0; t < names.size(); ++t) {
    TensorCheck merged;
    merged.name = local[t].name;
    merged.global = local[t].global;
    merged.atol = local[t].atol;
    merged.rtol = local[t].rtol;
    merged.max_rel_l2 = local[t].max_rel_l2;
    merged.hash = local[t].hash;
    const auto packed_of = [&](int r) {
      return std::span<const double>(
          all.data_as<double>() + (static_cast<std::size_t>(r) * names.size() + t) * kCheckFields,
          kCheckFields);
    };
    for (int r = 0; r < world.size(); ++r) merge(merged, packed_of(r));
    compare_replicas(merged, find_placement(placements, names[t]), packed_of);
    finish(merged);
    result.pass = result.pass && merged.pass;
    result.tensors.push_back(std::move(merged));
  }

  // Every rank checked its own collectives; gather the verdicts so that every rank knows.
  Tensor verdict = host.empty({1}, DType::f64);
  verdict.data_as<double>()[0] = result.comm.match ? 1.0 : 0.0;
  Tensor verdicts = host.empty({world.size()}, DType::f64);
  world.all_gather(verdict, verdicts);
  for (int r = 0; r < world.size(); ++r) {
    if (verdicts.data_as<double>()[r] == 0.0) result.comm_mismatch_ranks.push_back(r);
  }
  result.comm_match = result.comm_mismatch_ranks.empty();
  result.pass = result.pass && result.comm_match;
  return result;
}

}  // namespace tplab::verify
