#include "rank_verdict.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "device/cpu_device.hpp"

namespace tplab::verify {
namespace {

/// The fields a rank sends: whether each property holds (1 or 0 each, in kPropertyNames'
/// order), then its checks' verdict (1 or 0), how many faults it found and the first faulty
/// tensor (-1: none).
constexpr std::int64_t kFlags = static_cast<std::int64_t>(kProperties);
constexpr std::int64_t kVerdictFields = kFlags + 3;

std::array<double, kVerdictFields> pack(const RankVerdict& v) {
  std::array<double, kVerdictFields> fields{};
  for (std::size_t p = 0; p < kProperties; ++p) fields[p] = v.holds[p] ? 1.0 : 0.0;
  fields[kFlags] = v.checks_pass ? 1.0 : 0.0;
  fields[kFlags + 1] = static_cast<double>(v.faults.size());
  fields[kFlags + 2] = static_cast<double>(v.first_faulty_tensor);
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
  return std::all_of(f, f + kFlags, is_flag) && is_flag(f[kFlags]) &&
         is_whole_in(f[kFlags + 1], 0, 1e9) &&
         is_whole_in(f[kFlags + 2], -1, static_cast<double>(tensors));
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
      if (f[p] != 1.0) agreed.properties.mismatch_ranks[p].push_back(r);
    }
    every_check_passed = every_check_passed && f[kFlags] == 1.0;
    const double faults = f[kFlags + 1], first = f[kFlags + 2];
    if (r != world.rank() && faults > 0) {
      const std::string where = first < 0
                                    ? std::string()
                                    : fmt::format(", the first in the findings of {}",
                                                  tensors.at(static_cast<std::size_t>(first)));
      agreed.faults.push_back(fmt::format(
          "rank {} found {:.0f} value(s) of the checker's data broken{}", r, faults, where));
    }
  }
  agreed.pass = every_check_passed && agreed.properties.all_hold() && agreed.faults.empty();
  return agreed;
}

}  // namespace tplab::verify
