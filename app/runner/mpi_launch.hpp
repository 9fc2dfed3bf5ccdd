/// @file
/// Running tplab itself under mpiexec, with a deadline, on this machine or the hosts of a
/// hostfile, ending the whole job when tplab is interrupted.
#pragma once

#include <stdexcept>
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
  /// Open MPI's words when it could not start or run the job (StderrRelay::mpiexec_error).
  std::string mpiexec_error;

  /// How it ended, in words: "timed out after 300 s", "a process ended on signal 9 (Killed),
  /// which tplab never sends ...", "mpiexec could not run it (exit 255): ORTE was unable ...".
  std::string reason(int timeout_seconds) const;
  /// The exit code tplab gives for a job that ended so: the job's own 0 to 4, kTimedOut,
  /// kExitInternal for a process that crashed (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL), and
  /// kJobNotRun when mpiexec could not start or run it (not enough slots, its own error, an
  /// exit code no tplab process gives) or a process was ended by a signal from outside
  /// (SIGKILL from the kernel's out-of-memory killer or from kill, SIGTERM, ...).
  int exit_code() const;

 private:
  /// Whether mpiexec could not start or run the job (see exit_code).
  bool not_run() const;
};

/// How a job is launched: its deadline, and the hosts it runs on.
struct LaunchSettings {
  /// Seconds before the whole job is ended.
  int timeout_seconds = 300;
  /// An Open MPI hostfile (`--hostfile`), or empty for this machine alone.
  std::string hostfile;
};

/// Runs `mpiexec [$TPLAB_MPIEXEC_ARGS] [--hostfile F] -n ranks <this program> args...`,
/// passing its standard error on as it comes, and says how it ended. Ends the whole job (mpiexec
/// and every process it started) and returns kTimedOut when it runs past the deadline. When tplab
/// receives SIGINT, SIGTERM or SIGHUP while a job runs, it ends the job the same way and throws
/// Interrupted; mpiexec is also told to end (SIGTERM) should tplab itself die. As root, sets the
/// variables Open MPI needs to run as root and with more ranks than cores.
JobEnd run_under_mpiexec(int ranks, const std::vector<std::string>& args,
                         const LaunchSettings& launch);

/// The same for another program (a lesson's checker, for example).
JobEnd run_program_under_mpiexec(const std::string& program, int ranks,
                                 const std::vector<std::string>& args,
                                 const LaunchSettings& launch);

/// tplab was asked to stop by a signal; the job it ran has been ended. main() exits with
/// 128 + signal (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), as shells expect.
class Interrupted : public std::runtime_error {
 public:
  /// `signal_number` is the signal that arrived.
  explicit Interrupted(int signal_number);
  /// The signal that arrived.
  int signal_number() const { return signal_number_; }

 private:
  int signal_number_;
};

/// Throws Interrupted if SIGINT, SIGTERM or SIGHUP arrived since the first launch.
void throw_if_interrupted();

/// Exit codes of tplab, the same for every command.
inline constexpr int kExitFailed = 1;    ///< something disagreed with the reference
inline constexpr int kExitUsage = 2;     ///< bad input: the message says what would work
inline constexpr int kExitInternal = 3;  ///< a bug or a crash inside tplab
inline constexpr int kExitNoDevice = 4;  ///< --backend cuda without a GPU (or without CUDA built)
inline constexpr int kJobNotRun = 5;     ///< a launched job could not run or was ended from outside
inline constexpr int kTimedOut = 124;    ///< a launched job ran past its deadline

}  // namespace tplab::app
