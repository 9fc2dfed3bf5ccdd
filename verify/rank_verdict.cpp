#include "rank_verdict.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "device/cpu_device.hpp"

namespace tplab::verify {
namespace {

/// The fields a rank sends: its checks' verdict (1 or 0), how many faults it found, the first
/// faulty tensor (-1: none), then whether each property holds (1 or 0 each).
constexpr std::int64_t kFixedFields = 3;
constexpr std::int64_t kVerdictFields = kFixedFields + static_cast<std::int64_t>(kProperties);

std::array<double, kVerdictFields> pack(const RankVerdict& v) {
  std::array<double, kVerdictFields> fields = {v.checks_pass ? 1.0 : 0.0,
                                               static_cast<double>(v.faults.size()),
                                               static_cast<double>(v.first_faulty_tensor)};
  for (std::size_t p = 0; p < kProperties; ++p) fields[kFixedFields + p] = v.holds[p] ? 1.0 : 0.0;
  return fields;
}

bool is_flag(double v) {
  return v == 0.0 || v == 1.0;
}

/// Whether `v` is a whole number in [low, high): a count or an index that arrived intact.
bool is_whole_in(double v, double low, double high) {
  return std::isfinite(v) && v == std::floor(v) && v >= low && v < high;
}

bool arrived_intact(const double* f, std::size_t tensors) {
  return is_flag(f[0]) && is_whole_in(f[1], 0, 1e9) &&
         is_whole_in(f[2], -1, static_cast<double>(tensors)) &&
         std::all_of(f + kFixedFields, f + kVerdictFields, is_flag);
}

}  // namespace

AgreedVerdict agree_on_verdict(Comm& world, const RankVerdict& mine,
                               const std::vector<std::string>& tensors) {
  CpuDevice host;
  Tensor sent = host.empty({kVerdictFields}, DType::f64);
  const auto packed = pack(mine);
  std::copy(packed.begin(), packed.end(), sent.data_as<double>());
  Tensor all = host.empty({world.size() * kVerdictFields}, DType::f64);
  world.all_gather(sent, all);

  AgreedVerdict agreed;
  agreed.faults = mine.faults;
  bool every_check_passed = true;
  for (int r = 0; r < world.size(); ++r) {
    const double* f = all.data_as<double>() + r * kVerdictFields;
    if (!arrived_intact(f, tensors.size())) {
      agreed.faults.push_back(
          fmt::format("rank {}'s verdict arrived as {}", r, fmt::join(f, f + kVerdictFields, " ")));
      every_check_passed = false;
      continue;
    }
    for (std::size_t p = 0; p < kProperties; ++p) {
      if (f[kFixedFields + p] != 1.0) agreed.properties.mismatch_ranks[p].push_back(r);
    }
    every_check_passed = every_check_passed && f[0] == 1.0;
    if (r != world.rank() && f[1] > 0) {
      const std::string where = f[2] < 0 ? std::string()
                                         : fmt::format(", the first in the findings of {}",
                                                       tensors.at(static_cast<std::size_t>(f[2])));
      agreed.faults.push_back(fmt::format(
          "rank {} found {:.0f} value(s) of the checker's data broken{}", r, f[1], where));
    }
  }
  agreed.pass = every_check_passed && agreed.properties.all_hold() && agreed.faults.empty();
  return agreed;
}

}  // namespace tplab::verify
