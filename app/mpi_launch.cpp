#include "mpi_launch.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/error.hpp"
#include "stderr_relay.hpp"

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

std::string JobEnd::reason(int timeout_seconds) const {
  if (lacked_slots) return "mpiexec did not start it: not enough slots for its ranks";
  switch (code) {
    case 0:
      return "ended normally";
    case kExitFailed:
      return "exited 1";
    case kExitUsage:
      return "refused its input (exit 2)";
    case kExitInternal:
      return "crashed (exit 3)";
    case kExitNoDevice:
      return "found no CUDA device (exit 4)";
    case kTimedOut:
      return fmt::format("timed out after {} s", timeout_seconds);
    default:
      break;
  }
  // Open MPI ends with 128 + N when a rank died of signal N.
  if (code > 128 && code < 128 + NSIG) {
    return fmt::format("a process ended on signal {} ({})", code - 128, strsignal(code - 128));
  }
  return fmt::format("exited {}", code);
}

JobEnd run_under_mpiexec(int ranks, const std::vector<std::string>& args, int timeout_seconds) {
  return run_program_under_mpiexec(std::filesystem::read_symlink("/proc/self/exe").string(), ranks,
                                   args, timeout_seconds);
}

JobEnd run_program_under_mpiexec(const std::string& program, int ranks,
                                 const std::vector<std::string>& args, int timeout_seconds) {
  const std::string mpiexec = find_mpiexec();
  std::vector<std::string> argv = {mpiexec, "-n", std::to_string(ranks), program};
  argv.insert(argv.end(), args.begin(), args.end());

  StderrRelay relay;
  const pid_t child = fork();
  if (child < 0) throw InternalError("fork failed");
  if (child == 0) {
    setpgid(0, 0);  // its own process group, so a timeout can end every rank at once
    relay.attach_in_child();
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
  relay.detach_in_parent();
  setpgid(child, child);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  int status = 0;
  while (true) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (std::chrono::steady_clock::now() > deadline) {
      fmt::print(stderr, "tplab: mpiexec -n {} ran past {} s; ending the job\n", ranks,
                 timeout_seconds);
      kill(-child, SIGTERM);
      std::this_thread::sleep_for(std::chrono::seconds(3));
      kill(-child, SIGKILL);
      waitpid(child, &status, 0);
      relay.pass_on_rest();
      return {kTimedOut, relay.last_message(), relay.lacked_slots()};
    }
    relay.pass_on(std::chrono::milliseconds(20));
  }
  relay.pass_on_rest();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : kExitInternal, relay.last_message(),
          relay.lacked_slots()};
}

}  // namespace tplab::app
