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

/// Runs `mpiexec -n ranks <this program> args...` and returns its exit code. Kills the whole
/// job and returns kTimedOut when it runs past `timeout_seconds`. A SIGINT, SIGTERM or SIGHUP
/// to this process ends the whole job first, then this process, by that signal. As root, sets
/// the variables Open MPI needs to run as root and with more ranks than cores.
int run_under_mpiexec(int ranks, const std::vector<std::string>& args, int timeout_seconds);

/// The same for another program (a lesson's checker, for example).
int run_program_under_mpiexec(const std::string& program, int ranks,
                              const std::vector<std::string>& args, int timeout_seconds);

/// Exit codes of tplab, the same for every command.
inline constexpr int kExitFailed = 1;    ///< something disagreed with the reference
inline constexpr int kExitUsage = 2;     ///< bad input: the message says what would work
inline constexpr int kExitInternal = 3;  ///< a bug or a crash inside tplab
inline constexpr int kExitNoDevice = 4;  ///< --backend cuda without a GPU (or without CUDA built)
inline constexpr int kTimedOut = 124;    ///< a launched job ran past its deadline

}  // namespace tplab::app
