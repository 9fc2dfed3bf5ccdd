/// @file
/// Running tplab itself under mpiexec, with a deadline.
#pragma once

#include <string>
#include <vector>

namespace tplab::app {

/// True when this process was started by mpiexec (Open MPI, MPICH/Hydra or PMIx).
bool launched_by_mpi();

/// The mpiexec tplab uses: $TPLAB_MPIEXEC, else the one found at configure time, else
/// "mpiexec" on PATH. Throws UsageError naming what to install when none can be run.
std::string find_mpiexec();

/// How a launched job ended.
struct JobEnd {
  /// mpiexec's exit code, or kTimedOut when the job ran past its deadline.
  int code = 0;
  /// The job's last words on standard error (StderrRelay::last_message).
  std::string last_message;
  /// mpiexec said there are not enough slots for the ranks asked for.
  bool lacked_slots = false;

  /// How it ended, in words: "timed out after 300 s", "a process ended on signal 9 (Killed)".
  std::string reason(int timeout_seconds) const;
};

/// Runs `mpiexec -n ranks <this program> args...`, passing its standard error on as it comes,
/// and says how it ended. Kills the whole job when it runs past `timeout_seconds`. As root,
/// sets the variables Open MPI needs to run as root and with more ranks than cores.
JobEnd run_under_mpiexec(int ranks, const std::vector<std::string>& args, int timeout_seconds);

/// The same for another program (a lesson's checker, for example).
JobEnd run_program_under_mpiexec(const std::string& program, int ranks,
                                 const std::vector<std::string>& args, int timeout_seconds);

/// Exit codes of tplab, the same for every command.
inline constexpr int kExitFailed = 1;    ///< something disagreed with the reference
inline constexpr int kExitUsage = 2;     ///< bad input: the message says what would work
inline constexpr int kExitInternal = 3;  ///< a bug or a crash inside tplab
inline constexpr int kExitNoDevice = 4;  ///< --backend cuda without a GPU (or without CUDA built)
inline constexpr int kTimedOut = 124;    ///< a launched job ran past its deadline

}  // namespace tplab::app
