#include "comm/fault_injection.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include "core/bf16.hpp"
#include "core/error.hpp"

namespace tplab {
namespace {

enum class Kind { throw_error, exit_process, kill_process, nan, noise };

/// The relative size of kind=noise: what a sum in a slightly wrong order or a term dropped from
/// a long reduction leaves, 5,000 times f64's unit round-off.
constexpr double kNoise = 1e-12;

struct Plan {
  int rank = 0;
  long collective = 0;
  Kind kind = Kind::throw_error;
};

std::optional<Plan> plan;  // armed on the rank that is to fail, empty elsewhere
long issued = 0;           // collectives this process has issued so far

Plan parse(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return UsageError(fmt::format(
        "TPLAB_INJECT_FAULT='{}': {}; expected rank=R,collective=K,kind=throw|exit|kill|nan|noise",
        text, why));
  };
  Plan p;
  bool has_rank = false, has_collective = false, has_kind = false;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view field = text.substr(start, comma - start);
    const std::size_t eq = field.find('=');
    if (eq == std::string_view::npos) throw bad(fmt::format("'{}' has no '='", field));
    const std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
    const auto number = [&]() {
      long v = -1;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || end != value.data() + value.size() || v < 0) {
        throw bad(fmt::format("{} must be a number >= 0", key));
      }
      return v;
    };
    if (key == "rank") {
      const long r = number();
      if (r > std::numeric_limits<int>::max()) throw bad("rank too large");
      p.rank = static_cast<int>(r);
      has_rank = true;
    } else if (key == "collective") {
      p.collective = number();
      has_collective = true;
    } else if (key == "kind") {
      if (value == "throw")
        p.kind = Kind::throw_error;
      else if (value == "exit")
        p.kind = Kind::exit_process;
      else if (value == "kill")
        p.kind = Kind::kill_process;
      else if (value == "nan")
        p.kind = Kind::nan;
      else if (value == "noise")
        p.kind = Kind::noise;
      else
        throw bad(fmt::format("unknown kind '{}'", value));
      has_kind = true;
    } else {
      throw bad(fmt::format("unknown key '{}'", key));
    }
    start = comma + 1;
  }
  if (!has_rank || !has_collective || !has_kind)
    throw bad("rank, collective and kind are all needed");
  return p;
}

std::string where(long index, Collective collective, const std::string& group) {
  return fmt::format("collective #{} ({} on group '{}')", index, collective_name(collective),
                     group);
}

}  // namespace

void arm_fault_injection(int world_rank, int world_size) {
  plan.reset();
  issued = 0;
  const char* text = std::getenv("TPLAB_INJECT_FAULT");
  if (text == nullptr || *text == '\0') return;
  const Plan p = parse(text);
  if (p.rank == world_rank) plan = p;
  if (p.rank >= world_size && world_rank == 0) {
    fmt::print(stderr,
               "tplab: TPLAB_INJECT_FAULT names rank {}, but this job has {} rank{} (0-{}): no "
               "fault is injected in it\n",
               p.rank, world_size, world_size == 1 ? "" : "s", world_size - 1);
  }
}

bool fault_planned_here() {
  return plan.has_value();
}

std::optional<int> planned_fault_rank() {
  const char* text = std::getenv("TPLAB_INJECT_FAULT");
  if (text == nullptr || *text == '\0') return std::nullopt;
  return parse(text).rank;
}

void report_unfired_fault() {
  if (!plan || issued > plan->collective) return;
  fmt::print(stderr,
             "tplab: TPLAB_INJECT_FAULT planned a fault at collective #{} of rank {}, but that "
             "rank issued only {} collective{}: the fault never fired\n",
             plan->collective, plan->rank, issued, issued == 1 ? "" : "s");
}

long before_collective(Collective collective, const std::string& group) {
  const long index = issued++;
  if (!plan || index != plan->collective || plan->kind == Kind::nan || plan->kind == Kind::noise) {
    return index;
  }
  const std::string message = fmt::format("rank {} fails on purpose (TPLAB_INJECT_FAULT) at {}",
                                          plan->rank, where(index, collective, group));
  switch (plan->kind) {
    case Kind::throw_error:
      throw std::runtime_error(message);
    case Kind::exit_process:
      fmt::print(stderr, "tplab: {}: exiting\n", message);
      std::fflush(stderr);
      std::_Exit(3);
    case Kind::kill_process:
      fmt::print(stderr, "tplab: {}: killing itself\n", message);
      std::fflush(stderr);
      kill(getpid(), SIGKILL);
      break;
    case Kind::nan:
    case Kind::noise:
      break;
  }
  return index;
}

void add_noise_if_due(long index, Collective collective, const std::string& group, Tensor& result) {
  if (!plan || index != plan->collective || plan->kind != Kind::noise ||
      result.device() != DeviceKind::cpu || result.numel() == 0) {
    return;
  }
  fmt::print(stderr,
             "tplab: rank {} multiplies the result of {} by 1 +- {:g} (TPLAB_INJECT_FAULT)\n",
             plan->rank, where(index, collective, group), kNoise);
  const auto perturb = [&]<typename T>(T* data) {
    for (std::int64_t i = 0; i < result.numel(); ++i) {
      data[i] *= static_cast<T>(1.0 + (i % 2 == 0 ? kNoise : -kNoise));
    }
  };
  if (result.dtype() == DType::f64) perturb(result.data_as<double>());
  if (result.dtype() == DType::f32) perturb(result.data_as<float>());
}

bool nan_due(long index, Collective collective, const std::string& group) {
  if (!plan || index != plan->collective || plan->kind != Kind::nan) return false;
  fmt::print(stderr, "tplab: rank {} puts a NaN into the result of {} (TPLAB_INJECT_FAULT)\n",
             plan->rank, where(index, collective, group));
  return true;
}

std::vector<std::byte> quiet_nan_bytes(DType dtype) {
  std::vector<std::byte> bytes(dtype_size(dtype));
  switch (dtype) {
    case DType::f64: {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      std::memcpy(bytes.data(), &nan, bytes.size());
      break;
    }
    case DType::f32: {
      const float nan = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(bytes.data(), &nan, bytes.size());
      break;
    }
    case DType::bf16: {
      const Bf16Bits nan = bf16_from_float(std::numeric_limits<float>::quiet_NaN());
      std::memcpy(bytes.data(), &nan, bytes.size());
      break;
    }
  }
  return bytes;
}

}  // namespace tplab
