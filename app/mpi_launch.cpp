#include "mpi_launch.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/error.hpp"

namespace tplab::app {
namespace {

bool can_execute(const std::string& path) {
  return access(path.c_str(), X_OK) == 0;
}

std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string_view rest(path);
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    const std::string candidate = dir + "/" + name;
    if (!dir.empty() && can_execute(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return {};
}

/// The signal that asked this process to stop while a job ran (0: none).
volatile std::sig_atomic_t stop_signal = 0;

extern "C" void remember_stop_signal(int signal_number) {
  stop_signal = signal_number;
}

/// While a job runs, SIGINT, SIGTERM and SIGHUP are remembered rather than obeyed at once: the
/// job runs in a process group of its own (so that a deadline can end every rank together),
/// which no signal sent to this process or its group reaches, so this process must end the job
/// before it goes. Before: a Ctrl-C, or a `timeout` around tplab, left the ranks running.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction remember {};
    remember.sa_handler = remember_stop_signal;
    sigemptyset(&remember.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
      sigaction(kSignals[i], &remember, &previous_[i]);
    }
  }
  ~StopSignals() {
    for (std::size_t i = 0; i < kSignals.size(); ++i)
      sigaction(kSignals[i], &previous_[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> previous_{};
};

/// Ends the job of process group `child` (SIGTERM, then SIGKILL after 3 s) and reaps it.
void end_job(pid_t child, int& status) {
  kill(-child, SIGTERM);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  kill(-child, SIGKILL);
  waitpid(child, &status, 0);
}

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

std::string find_mpiexec() {
  if (const char* chosen = std::getenv("TPLAB_MPIEXEC")) {
    if (can_execute(chosen)) return chosen;
    throw UsageError(fmt::format("TPLAB_MPIEXEC={} is not an executable program", chosen));
  }
  if (can_execute(TPLAB_MPIEXEC)) return TPLAB_MPIEXEC;
  if (auto found = on_path("mpiexec"); !found.empty()) return found;
  throw UsageError(
      "no mpiexec found: install Open MPI (sudo apt-get install openmpi-bin libopenmpi-dev) or "
      "point TPLAB_MPIEXEC at your MPI's launcher");
}

int run_under_mpiexec(int ranks, const std::vector<std::string>& args, int timeout_seconds) {
  return run_program_under_mpiexec(std::filesystem::read_symlink("/proc/self/exe").string(), ranks,
                                   args, timeout_seconds);
}

int run_program_under_mpiexec(const std::string& program, int ranks,
                              const std::vector<std::string>& args, int timeout_seconds) {
  const std::string mpiexec = find_mpiexec();
  std::vector<std::string> argv = {mpiexec, "-n", std::to_string(ranks), program};
  argv.insert(argv.end(), args.begin(), args.end());

  const StopSignals remembered;  // from before the job exists (execv resets them in the child)
  const pid_t child = fork();
  if (child < 0) throw InternalError("fork failed");
  if (child == 0) {
    setpgid(0, 0);  // its own process group, so a timeout can end every rank at once
    if (geteuid() == 0) {
      setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
      setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
    if (ranks > static_cast<int>(std::thread::hardware_concurrency())) {
      // More ranks than cores: a waiting rank must give its core to one that computes.
      setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
    }
    std::vector<char*> raw;
    for (auto& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    execv(mpiexec.c_str(), raw.data());
    std::_Exit(127);
  }
  setpgid(child, child);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  int status = 0;
  while (true) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (stop_signal != 0) {
      const int signal_number = stop_signal;
      fmt::print(stderr, "tplab: {}; ending mpiexec -n {}\n", strsignal(signal_number), ranks);
      end_job(child, status);
      std::signal(signal_number, SIG_DFL);
      std::raise(signal_number);  // leave as the signal asked, now that the job is gone
    }
    if (std::chrono::steady_clock::now() > deadline) {
      fmt::print(stderr, "tplab: mpiexec -n {} ran past {} s; ending the job\n", ranks,
                 timeout_seconds);
      end_job(child, status);
      return kTimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return kExitInternal;
}

}  // namespace tplab::app
