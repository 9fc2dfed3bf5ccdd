/// @file
/// Calibration: timing a matrix product and every collective on this machine.
#include "calibration.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>

#include "alpha_beta.hpp"
#include "core/error.hpp"

namespace tplab::model {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::int64_t kMatmulSize = 1024;
constexpr std::int64_t kSmall = 8, kMedium = std::int64_t{1} << 18, kLarge = std::int64_t{1} << 22;

/// The median over `repeats` (after one warm-up) of the slowest rank's time of `call`.
double median_seconds(Comm& world, Device& device, int repeats, const std::function<void()>& call) {
  std::vector<double> samples;
  Tensor slowest = device.empty({1}, DType::f64);
  for (int i = 0; i <= repeats; ++i) {
    world.barrier();
    const auto start = Clock::now();
    call();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    device.upload(std::vector<double>{elapsed}, slowest);
    world.all_reduce(slowest, ReduceOp::max);
    std::vector<double> back(1);
    device.download(slowest, back);
    if (i > 0) samples.push_back(back[0]);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

/// One transfer of `x` in each pair of ranks (0, 1), (2, 3), ...: for send the pair's even rank
/// sends and its odd rank receives, for recv the other way round; a last rank without a partner
/// waits for the others.
std::function<void()> one_transfer(Comm& world, std::shared_ptr<Tensor> x, Collective collective) {
  const int partner = world.rank() ^ 1;
  if (partner >= world.size()) return [] {};
  if ((world.rank() % 2 == 0) == (collective == Collective::send)) {
    return [&world, x, partner] { world.send(*x, partner); };
  }
  return [&world, x, partner] { world.recv(*x, partner); };
}

/// One call of `collective` over `world` on an f32 tensor of `n` elements (the logical size).
std::function<void()> one_call(Comm& world, Device& device, Collective collective, std::int64_t n) {
  const std::int64_t p = world.size();
  auto full = std::make_shared<Tensor>(device.zeros({n}, DType::f32));
  auto part = std::make_shared<Tensor>(device.zeros({n / p}, DType::f32));
  switch (collective) {
    case Collective::all_reduce:
      return [&world, full] { world.all_reduce(*full); };
    case Collective::all_gather:
      return [&world, full, part] { world.all_gather(*part, *full); };
    case Collective::reduce_scatter:
      return [&world, full, part] { world.reduce_scatter(*full, *part); };
    case Collective::broadcast:
      return [&world, full] { world.broadcast(*full, 0); };
    case Collective::reduce: {
      auto out = std::make_shared<Tensor>(device.zeros({n}, DType::f32));
      return [&world, full, out] { world.reduce(*full, *out, 0); };
    }
    case Collective::send:
    case Collective::recv:
      return one_transfer(world, full, collective);
  }
  throw InternalError("unknown collective");
}

std::string today() {
  return fmt::format("{:%Y-%m-%d}", fmt::localtime(std::time(nullptr)));
}

}  // namespace

double calibration_bytes_per_rank() {
  const double n = static_cast<double>(kMatmulSize), large = static_cast<double>(kLarge);
  return 4.0 * (3.0 * n * n + 2.0 * large);
}

Calibration calibrate(Comm& world, Device& device) {
  const int p = world.size();
  check(p >= 2, "calibrating the collectives needs at least 2 ranks");
  Calibration c;
  c.ranks = p;
  c.matmul_size = kMatmulSize;
  const std::int64_t n = kMatmulSize;
  Tensor a = device.empty({n, n}, DType::f32), b = device.empty({n, n}, DType::f32);
  device.fill(a, 0.5);
  device.fill(b, 0.25);
  Tensor product = device.empty({n, n}, DType::f32);
  const double matmul_s = median_seconds(world, device, 5, [&] {
    // [n, n] x [n, n] -> [n, n], on every rank at once
    device.matmul(a, Transpose::no, b, Transpose::no, product);
  });
  c.matmul_flops_per_s = 2.0 * static_cast<double>(n * n * n) / matmul_s;

  for (Collective collective :
       {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
        Collective::broadcast, Collective::reduce, Collective::send, Collective::recv}) {
    Calibration::Point point;
    point.collective = collective;
    // every size a multiple of p, so that gathers and scatters split evenly
    point.small = kSmall * p;
    point.medium = kMedium / p * p;
    point.large = kLarge / p * p;
    point.small_s =
        median_seconds(world, device, 200, one_call(world, device, collective, point.small));
    point.medium_s =
        median_seconds(world, device, 10, one_call(world, device, collective, point.medium));
    point.large_s =
        median_seconds(world, device, 10, one_call(world, device, collective, point.large));
    const double per_element =
        (point.large_s - point.medium_s) / static_cast<double>(point.large - point.medium);
    if (per_element <= 0) {
      throw UsageError(fmt::format(
          "calibration: {} of {} elements took no longer than of {}; the machine is too busy to "
          "measure, try again when it is idle",
          collective_name(collective), point.large, point.medium));
    }
    point.rate.latency_s = point.small_s / ring_steps(collective, p);
    point.rate.bandwidth_bytes_per_s = bus_factor(collective, p) * 4.0 / per_element;
    c.collectives.push_back(point);
  }
  return c;
}

HardwareProfile local_profile(const Calibration& c) {
  HardwareProfile p;
  p.name = "local";
  p.description = fmt::format(
      "this machine, calibrated {}: one MPI rank per core, f32 on the CPU device", today());
  // A device is a core: one rank per core runs at the measured rate, more would share cores.
  p.gpus_per_node = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  p.matmul_flops_per_s = c.matmul_flops_per_s;
  p.bytes_per_element = 4;
  const double ram =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  p.memory_bytes = ram / p.gpus_per_node;
  const std::string when = fmt::format("./tplab model --calibrate, {}", today());
  p.sources["gpus_per_node"] =
      fmt::format("this machine's cores (sysconf), one rank per core ({})", when);
  p.sources["matmul_flops_per_s"] = fmt::format(
      "f32 [{0}, {0}] x [{0}, {0}] with the CPU device (Eigen, one thread per rank) on {1} ranks "
      "at once, median of 5 after a warm-up, the slower rank ({2})",
      c.matmul_size, c.ranks, when);
  p.sources["bytes_per_element"] = "f32, the dtype of bench step and of the calibration";
  p.sources["memory_bytes"] =
      fmt::format("this machine's RAM (sysconf) divided among its {} cores", p.gpus_per_node);
  for (const Calibration::Point& point : c.collectives) {
    p.intra_node.per_collective[point.collective] = point.rate;
    const std::string key =
        fmt::format("intra_node.per_collective.{}", collective_name(point.collective));
    p.sources[key + ".latency_s"] = fmt::format(
        "median time of a {}-element f32 call on {} ranks over its {} ring step(s) ({})",
        point.small, c.ranks, ring_steps(point.collective, c.ranks), when);
    p.sources[key + ".bandwidth_bytes_per_s"] = fmt::format(
        "N x bus factor x 4 bytes per second from the times of {}- and {}-element f32 calls on {} "
        "ranks ({})",
        point.medium, point.large, c.ranks, when);
  }
  p.intra_node.rate = p.intra_node.per_collective.at(Collective::all_reduce);
  p.sources["intra_node.latency_s"] = "all_reduce's, below";
  p.sources["intra_node.bandwidth_bytes_per_s"] = "all_reduce's, below";
  return p;
}

}  // namespace tplab::model
