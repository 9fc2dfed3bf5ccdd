/// @file
/// Which host each rank of a job runs on, gathered from every rank.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tplab::app {

/// The hosts of a job: every rank's MPI processor name, known on every rank.
class RankHosts {
 public:
  /// Gathers each rank's processor name over `comm` (a collective: every rank calls it).
  explicit RankHosts(MPI_Comm comm);

  /// How many distinct hosts the ranks run on.
  int host_count() const { return static_cast<int>(hosts_.size()); }

  /// `[{"name": host, "ranks": [r, ...]}, ...]`, hosts in the order of their first rank.
  nlohmann::json to_json() const;

  /// One line: "1 host: node (ranks 0-3)" or "2 hosts: a (ranks 0,2), b (ranks 1,3)".
  std::string summary() const;

 private:
  struct Host {
    std::string name;
    std::vector<int> ranks;
  };
  std::vector<Host> hosts_;
};

}  // namespace tplab::app
