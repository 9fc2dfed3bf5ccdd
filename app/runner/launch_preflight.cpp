#include "launch_preflight.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "comm/fault_injection.hpp"
#include "core/error.hpp"
#include "process_resources.hpp"

namespace tplab::app {
namespace {

constexpr int kRanksPerCore = 4;
constexpr int kLeastRankLimit = 32;

/// "512 MiB", "2.0 GiB": what a person reads at a glance.
std::string size_text(double bytes) {
  if (bytes < 0x1p30) return fmt::format("{:.0f} MiB", bytes / 0x1p20);
  return fmt::format("{:.1f} GiB", bytes / 0x1p30);
}

/// The most ranks of `job` one machine runs.
int ranks_per_machine(const JobPlan& job, int hosts) {
  hosts = std::max(1, hosts);
  return (job.np + hosts - 1) / hosts;
}

/// What one machine's ranks of `job` hold.
double job_bytes(const JobPlan& job, int hosts) {
  return ranks_per_machine(job, hosts) * (kRankOverheadBytes + job.bytes_per_rank);
}

void require_rank_limit(const LaunchPlan& plan, int hosts) {
  const int limit = rank_limit();
  for (const JobPlan& job : plan.jobs) {
    if (ranks_per_machine(job, hosts) <= limit) continue;
    throw UsageError(fmt::format(
        "{} on {} ranks: more than this machine's limit of {} ranks per job ({} per core, {} "
        "cores, and at least {}); so many processes take turns on the cores and each holds "
        "about {}. Use fewer ranks (--np), or pass --allow-many-ranks to start them anyway",
        job.label, ranks_per_machine(job, hosts), limit, kRanksPerCore, bench::available_cores(),
        kLeastRankLimit, size_text(kRankOverheadBytes)));
  }
}

void require_memory(const LaunchPlan& plan, int hosts) {
  const double available = available_memory_bytes();
  if (available <= 0) return;
  for (const JobPlan& job : plan.jobs) {
    const double needed = job_bytes(job, hosts);
    if (needed <= available) continue;
    throw UsageError(fmt::format(
        "{} on {} ranks needs about {} here: {} x ({} for the process itself + {} of tensors: "
        "{}), but {} are available; use fewer ranks or {}",
        job.label, ranks_per_machine(job, hosts), size_text(needed), ranks_per_machine(job, hosts),
        size_text(kRankOverheadBytes), size_text(job.bytes_per_rank), plan.tensors,
        size_text(available), plan.smaller));
  }
}

/// A fault planned for a rank that no job starts could never fire: refuse it rather than run
/// every job without it.
void require_reachable_fault(const LaunchPlan& plan) {
  const std::optional<int> rank = planned_fault_rank();
  if (!rank) return;
  int largest = 0;
  for (const JobPlan& job : plan.jobs) largest = std::max(largest, job.np);
  if (*rank < largest) return;
  throw UsageError(fmt::format(
      "TPLAB_INJECT_FAULT names rank {}, but the largest job here has {} rank{} (0-{}), so the "
      "fault could never fire; name a rank below {}",
      *rank, largest, largest == 1 ? "" : "s", largest - 1, largest));
}

}  // namespace

int rank_limit() {
  return std::max(kLeastRankLimit, kRanksPerCore * bench::available_cores());
}

double available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

void preflight(const LaunchPlan& plan, bool allow_many_ranks, int hosts) {
  if (!allow_many_ranks) require_rank_limit(plan, hosts);
  require_memory(plan, hosts);
  require_reachable_fault(plan);
}

void require_available_memory(double bytes, const std::string& what, const std::string& smaller) {
  const double available = available_memory_bytes();
  if (available <= 0 || bytes <= available) return;
  throw UsageError(fmt::format("{} needs about {} here, but {} are available; use {}", what,
                               size_text(bytes), size_text(available), smaller));
}

}  // namespace tplab::app
