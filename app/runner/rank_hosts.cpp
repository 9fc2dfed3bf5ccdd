#include "rank_hosts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace tplab::app {
namespace {

/// "0-3" for consecutive ranks, "0,2" otherwise.
std::string rank_list(const std::vector<int>& ranks) {
  const bool consecutive =
      ranks.size() > 2 && ranks.back() - ranks.front() + 1 == static_cast<int>(ranks.size());
  if (consecutive) return fmt::format("{}-{}", ranks.front(), ranks.back());
  return fmt::format("{}", fmt::join(ranks, ","));
}

}  // namespace

RankHosts::RankHosts(MPI_Comm comm) {
  int size = 1, length = 0;
  MPI_Comm_size(comm, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, comm);
  for (int r = 0; r < size; ++r) {
    const std::string host(&all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
    auto it =
        std::find_if(hosts_.begin(), hosts_.end(), [&](const Host& h) { return h.name == host; });
    if (it == hosts_.end()) it = hosts_.insert(hosts_.end(), Host{host, {}});
    it->ranks.push_back(r);
  }
}

nlohmann::json RankHosts::to_json() const {
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& h : hosts_) hosts.push_back({{"name", h.name}, {"ranks", h.ranks}});
  return hosts;
}

std::string RankHosts::summary() const {
  std::vector<std::string> parts;
  for (const auto& h : hosts_) {
    parts.push_back(
        fmt::format("{} (rank{} {})", h.name, h.ranks.size() == 1 ? "" : "s", rank_list(h.ranks)));
  }
  return fmt::format("{} host{}: {}", hosts_.size(), hosts_.size() == 1 ? "" : "s",
                     fmt::join(parts, ", "));
}

}  // namespace tplab::app
