#include "rank_verdict.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cmath>

#include "device/cpu_device.hpp"

namespace tplab::verify {
namespace {

/// The fields a rank sends: its collectives' and its checks' verdicts (1 or 0 each), how many
/// faults it found, the first faulty tensor (-1: none), its kept bytes' verdict and whether its
/// recomputing run gave the bits of the run that keeps (1 or 0 each).
constexpr std::int64_t kVerdictFields = 6;

std::array<double, kVerdictFields> pack(const RankVerdict& v) {
  return {v.comm_match ? 1.0 : 0.0,
          v.checks_pass ? 1.0 : 0.0,
          static_cast<double>(v.faults.size()),
          static_cast<double>(v.first_faulty_tensor),
          v.kept_match ? 1.0 : 0.0,
          v.recompute_match ? 1.0 : 0.0};
}

bool is_flag(double v) {
  return v == 0.0 || v == 1.0;
}

/// Whether `v` is a whole number in [low, high): a count or an index that arrived intact.
bool is_whole_in(double v, double low, double high) {
  return std::isfinite(v) && v == std::floor(v) && v >= low && v < high;
}

bool arrived_intact(const double* f, std::size_t tensors) {
  return is_flag(f[0]) && is_flag(f[1]) && is_whole_in(f[2], 0, 1e9) &&
         is_whole_in(f[3], -1, static_cast<double>(tensors)) && is_flag(f[4]) && is_flag(f[5]);
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
    if (f[0] != 1.0) agreed.comm_mismatch_ranks.push_back(r);
    if (f[4] != 1.0) agreed.kept_mismatch_ranks.push_back(r);
    if (f[5] != 1.0) agreed.recompute_mismatch_ranks.push_back(r);
    every_check_passed = every_check_passed && f[1] == 1.0;
    if (r != world.rank() && f[2] > 0) {
      const std::string where = f[3] < 0 ? std::string()
                                         : fmt::format(", the first in the findings of {}",
                                                       tensors.at(static_cast<std::size_t>(f[3])));
      agreed.faults.push_back(fmt::format(
          "rank {} found {:.0f} value(s) of the checker's data broken{}", r, f[2], where));
    }
  }
  agreed.pass = every_check_passed && agreed.comm_mismatch_ranks.empty() &&
                agreed.kept_mismatch_ranks.empty() && agreed.recompute_mismatch_ranks.empty() &&
                agreed.faults.empty();
  return agreed;
}

}  // namespace tplab::verify
