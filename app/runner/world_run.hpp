/// @file
/// What every command does on each rank of a job that mpiexec started, written once: the MPI
/// session, the device and world communicator, the hosts, the --np check, rank 0's --json
/// checked before the first collective of the command and written after, and one handling of
/// errors for every command.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "rank_hosts.hpp"

namespace tplab::app {

/// How a job's ranks are set up.
struct WorldSetup {
  std::string backend = "cpu";  ///< cpu (Eigen, MPI) or cuda (cuBLAS; NCCL or staged MPI)
  std::string comm = "auto";    ///< with cuda: nccl, mpi or auto
  /// The --np the job was given: empty for any world, else one size, which must be the
  /// world's (a job started by hand with other ranks is refused, not run at the wrong size).
  std::vector<int> np;
  /// The job's --json: rank 0's result file, checked on rank 0 before anything runs.
  std::optional<std::string> json;
  /// The key the records go under in the result: "runs", "rows".
  std::string key = "runs";
  /// The job's --trace: every rank's timeline, written by rank 0 once the work is done
  /// (host/trace_file.hpp); each record gets its path as "trace".
  std::optional<std::string> trace;

  /// A job given `np`, `json` and `trace`, on the CPU backend (Eigen, MPI), its records under
  /// "runs".
  static WorldSetup for_job(std::vector<int> np, std::optional<std::string> json,
                            std::optional<std::string> trace = std::nullopt) {
    WorldSetup setup;
    setup.np = std::move(np);
    setup.json = std::move(json);
    setup.trace = std::move(trace);
    return setup;
  }
};

/// One rank's view of the job while the command's work runs.
struct World {
  Comm& comm;              ///< the world communicator (counted)
  Device& device;          ///< this rank's device
  const RankHosts& hosts;  ///< which host each rank runs on
  /// The world's MPI communicator under `comm` on the CPU backend (raw MPI timings beside
  /// tplab's, in bench comm); MPI_COMM_NULL on the GPU.
  MPI_Comm mpi = MPI_COMM_NULL;
  /// Keeps the records `records()` makes, those finished so far, as the job's result (rank 0
  /// writes them to --json with "pass" false, as often as progress_keeper.hpp allows) until a
  /// later call or the result at the end replaces them: a job ended early (past its --timeout)
  /// leaves them to the launcher. A no-op on the other ranks.
  std::function<void(const std::function<nlohmann::json()>& records)> keep_progress =
      [](const std::function<nlohmann::json()>&) {};
};

/// What the command's work returns on every rank; rank 0's records are the job's result.
struct WorldResult {
  nlohmann::json records = nlohmann::json::array();  ///< each gets "hosts" added
  bool pass = true;                                  ///< exit 0 when true, 1 when not
};

/// Refuses with UsageError a --backend other than cpu or cuda, a --comm other than auto, mpi
/// or nccl, and NCCL on the CPU.
void validate_backend_choice(const std::string& backend, const std::string& comm);

/// Runs `work` on this rank and returns the rank's exit code. Errors are handled alike for
/// every command: a UsageError, which every rank reaches alike before any collective of the
/// command, is printed with the rank and gives exit 2; a missing GPU exit 4; a non-finite value
/// (--check-finite), which only one rank may see, ends the whole job with exit 1; anything else
/// ends the whole job with exit 3, naming the rank, so that no rank is left waiting.
int run_in_world(const WorldSetup& setup, const std::function<WorldResult(World&)>& work);

}  // namespace tplab::app
