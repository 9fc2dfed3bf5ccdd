#include "hostfile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "regular_file.hpp"

namespace tplab::app {
namespace {

int positive_count(const std::string& word, const std::string& where) {
  const auto value = word.substr(word.find('=') + 1);
  int n = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (error != std::errc() || end != value.data() + value.size() || n < 1) {
    throw UsageError(fmt::format("{}: '{}' needs a positive whole number of ranks", where, word));
  }
  return n;
}

}  // namespace

std::vector<HostEntry> read_hostfile(const std::string& path) {
  std::istringstream in(read_regular_file(
      path, "--hosts", "give a hostfile with one host a line, e.g. 'node1 slots=8'"));
  std::vector<HostEntry> hosts;
  std::map<std::string, int> line_of_host;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    HostEntry host;
    if (!(words >> host.name)) continue;
    const std::string where = fmt::format("--hosts {}, line {}", path, number);
    for (std::string word; words >> word;) {
      if (word.starts_with("slots="))
        host.slots = positive_count(word, where);
      else if (word.starts_with("max_slots=") || word.starts_with("max-slots="))
        positive_count(word, where);
      else
        throw UsageError(fmt::format("{}: unknown '{}' (use slots=N)", where, word));
    }
    // Open MPI cannot map a host listed twice (it stops with an internal error of its own).
    if (const auto [first, added] = line_of_host.emplace(host.name, number); !added) {
      throw UsageError(fmt::format(
          "--hosts {}: {} is on line {} and again on line {}; give each host one line, with "
          "all its slots (slots=N)",
          path, host.name, first->second, number));
    }
    hosts.push_back(host);
  }
  if (hosts.empty()) throw UsageError(fmt::format("--hosts {}: names no host", path));
  return hosts;
}

int host_count(const std::string& hostfile) {
  return hostfile.empty() ? 1 : static_cast<int>(read_hostfile(hostfile).size());
}

LaunchSettings launch_settings(int timeout_seconds, const std::string& hostfile, int max_ranks) {
  LaunchSettings launch{timeout_seconds, {}};
  if (hostfile.empty()) return launch;
  const auto hosts = read_hostfile(hostfile);
  int slots = 0;
  bool every_host_counted = true;
  std::vector<std::string> listed;
  for (const auto& h : hosts) {
    slots += h.slots;
    every_host_counted = every_host_counted && h.slots > 0;
    listed.push_back(h.slots > 0
                         ? fmt::format("{} ({} slot{})", h.name, h.slots, h.slots == 1 ? "" : "s")
                         : h.name);
  }
  if (every_host_counted && max_ranks > slots) {
    throw UsageError(fmt::format(
        "a job of {} ranks needs {} slots, but {} lists {}: {}; add hosts or slots, or use fewer "
        "ranks (--np)",
        max_ranks, max_ranks, hostfile, slots, fmt::join(listed, ", ")));
  }
  launch.hostfile = std::filesystem::absolute(hostfile).string();
  fmt::print("hosts from {}: {}\n", hostfile, fmt::join(listed, ", "));
  return launch;
}

}  // namespace tplab::app
