#include "mpi_launch.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "private_folder.hpp"
#include "stderr_relay.hpp"

namespace tplab::app {
namespace {

using Clock = std::chrono::steady_clock;

/// The signal that asked tplab to stop, or 0.
volatile sig_atomic_t g_stop_signal = 0;

void remember_signal(int signal_number) {
  g_stop_signal = signal_number;
}

/// From the first launch on, SIGINT, SIGTERM and SIGHUP are noted rather than fatal, so that
/// tplab can end the job it started before it exits. Orphaned processes of a job are handed to
/// tplab (a child subreaper) rather than to init, so none can outlive it unseen.
void take_over_stop_signals() {
  static const bool done = [] {
    struct sigaction action {};
    action.sa_handler = remember_signal;
    sigemptyset(&action.sa_mask);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &action, nullptr);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    return true;
  }();
  (void)done;
}

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

/// Every process below `root`, read from /proc (the parent is the 4th field of stat, after
/// the command name in parentheses, which may itself hold spaces and parentheses).
std::set<pid_t> descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    pid_t parent = 0;
    if (rest >> state >> parent) children.emplace(parent, std::stoi(name));
  }
  std::set<pid_t> found;
  std::vector<pid_t> todo = {root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (auto [it, end] = children.equal_range(p); it != end; ++it) {
      if (found.insert(it->second).second) todo.push_back(it->second);
    }
  }
  return found;
}

/// Ends a job: asks mpiexec to stop with `signal_number` (it ends its ranks), waits up to
/// three seconds, then kills whatever of the job is left, stopped ranks included (Open MPI
/// puts each rank in a process group of its own, so the job is found by ancestry).
void end_job(pid_t mpiexec, int signal_number) {
  std::set<pid_t> job = descendants(mpiexec);
  kill(mpiexec, signal_number);
  for (pid_t p : job) kill(p, SIGCONT);  // a stopped rank cannot act on SIGTERM
  int status = 0;
  const auto grace = Clock::now() + std::chrono::seconds(3);
  bool ended = false;
  while (!ended && Clock::now() < grace) {
    ended = waitpid(mpiexec, &status, WNOHANG) == mpiexec;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (pid_t p : descendants(getpid())) job.insert(p);
  if (!ended) kill(mpiexec, SIGKILL);
  for (pid_t p : job) kill(p, SIGKILL);
  if (!ended) waitpid(mpiexec, &status, 0);
  while (waitpid(-1, &status, WNOHANG) > 0) {
  }
}

/// The words of $TPLAB_MPIEXEC_ARGS, split at white space (no quoting).
std::vector<std::string> extra_mpiexec_arguments() {
  std::vector<std::string> words;
  if (const char* extra = std::getenv("TPLAB_MPIEXEC_ARGS")) {
    std::istringstream in(extra);
    for (std::string w; in >> w;) words.push_back(w);
  }
  return words;
}

const char* signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

/// In the forked child: becomes mpiexec with the job's environment (never returns).
[[noreturn]] void exec_mpiexec(std::vector<std::string>& argv, int ranks, pid_t launcher,
                               const PrivateFolder& mpi_session, StderrRelay& relay) {
  // mpiexec ends the job if tplab dies, even of SIGKILL.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != launcher) std::_Exit(127);
  setpgid(0, 0);  // its own process group: a Ctrl-C at the terminal reaches tplab alone
  for (int s : {SIGINT, SIGTERM, SIGHUP}) signal(s, SIG_DFL);
  relay.attach_in_child();
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
  setenv("TMPDIR", mpi_session.path().c_str(), 1);
  if (ranks > static_cast<int>(std::thread::hardware_concurrency())) {
    // More ranks than cores: a waiting rank must give its core to one that computes.
    setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
  }
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  execv(argv.front().c_str(), raw.data());
  std::_Exit(127);
}

/// The signal that ended a rank when mpiexec exits `code` (Open MPI exits 128 + N when a rank
/// died of signal N), or 0.
int ended_by_signal(int code) {
  return code > 128 && code < 128 + NSIG ? code - 128 : 0;
}

/// Whether signal `s` is one a process raises on itself when it crashes (or that a sanitizer's
/// abort raises), rather than one sent from outside.
bool is_crash_signal(int s) {
  return s == SIGSEGV || s == SIGABRT || s == SIGBUS || s == SIGFPE || s == SIGILL ||
         s == SIGTRAP || s == SIGSYS;
}

/// What to look at when Open MPI ran out of a resource, or "": mostly the space of the folder
/// where it keeps its session files (shared memory among them).
std::string out_of_resource_hint(const std::string& mpiexec_error) {
  std::string upper = mpiexec_error;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.find("OUT-OF-RESOURCE") == std::string::npos &&
      upper.find("OUT OF RESOURCE") == std::string::npos) {
    return {};
  }
  const char* tmpdir = std::getenv("TMPDIR");
  return fmt::format(
      " (Open MPI keeps its session files under TMPDIR={}: is it full? Free space there or "
      "point TMPDIR at a folder with room)",
      tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp");
}

}  // namespace

Interrupted::Interrupted(int signal_number)
    : std::runtime_error(fmt::format("interrupted by {}", signal_name(signal_number))),
      signal_number_(signal_number) {}

void throw_if_interrupted() {
  if (g_stop_signal != 0) throw Interrupted(g_stop_signal);
}

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
  if (code == kTimedOut) return fmt::format("timed out after {} s", timeout_seconds);
  if (not_run()) {
    return fmt::format("mpiexec could not run it (exit {}): {}{}", code,
                       mpiexec_error.empty() ? "it gave no reason of its own" : mpiexec_error,
                       out_of_resource_hint(mpiexec_error));
  }
  if (const int s = ended_by_signal(code); s != 0) {
    return fmt::format("a process ended on signal {} ({}){}", s, strsignal(s),
                       is_crash_signal(s) ? ""
                                          : ", which tplab never sends: it was ended from "
                                            "outside (kill, or the kernel's out-of-memory "
                                            "killer, which sends SIGKILL)");
  }
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
    default:
      return fmt::format("exited {}", code);
  }
}

bool JobEnd::not_run() const {
  if (lacked_slots) return true;
  if (code == 0 || code == kExitUsage || code == kExitInternal || code == kExitNoDevice ||
      code == kTimedOut) {
    return false;  // the job's own ending, or tplab's deadline
  }
  if (!mpiexec_error.empty()) return true;
  return code != kExitFailed && ended_by_signal(code) == 0;  // a code no tplab process exits with
}

int JobEnd::exit_code() const {
  if (not_run()) return kJobNotRun;
  if (const int s = ended_by_signal(code); s != 0) {
    return is_crash_signal(s) ? kExitInternal : kJobNotRun;
  }
  return code;
}

JobEnd run_under_mpiexec(int ranks, const std::vector<std::string>& args,
                         const LaunchSettings& launch) {
  return run_program_under_mpiexec(std::filesystem::read_symlink("/proc/self/exe").string(), ranks,
                                   args, launch);
}

JobEnd run_program_under_mpiexec(const std::string& program, int ranks,
                                 const std::vector<std::string>& args,
                                 const LaunchSettings& launch) {
  const std::string mpiexec = find_mpiexec();
  std::vector<std::string> argv = {mpiexec};
  for (auto& w : extra_mpiexec_arguments()) argv.push_back(std::move(w));
  if (!launch.hostfile.empty()) argv.insert(argv.end(), {"--hostfile", launch.hostfile});
  argv.insert(argv.end(), {"-n", std::to_string(ranks), program});
  argv.insert(argv.end(), args.begin(), args.end());

  take_over_stop_signals();
  throw_if_interrupted();
  // Open MPI keeps its session files under $TMPDIR and leaves them when mpiexec is ended
  // abruptly; in a folder of the job's own they go when the job does, however it ended.
  const PrivateFolder mpi_session("tplab-mpi", "/tmp");
  const pid_t launcher = getpid();
  StderrRelay relay;
  const pid_t child = fork();
  if (child < 0) throw InternalError(fmt::format("fork failed: {}", std::strerror(errno)));
  if (child == 0) exec_mpiexec(argv, ranks, launcher, mpi_session, relay);
  relay.detach_in_parent();
  setpgid(child, child);

  const auto deadline = Clock::now() + std::chrono::seconds(launch.timeout_seconds);
  int status = 0;
  while (waitpid(child, &status, WNOHANG) != child) {
    if (const int s = g_stop_signal; s != 0) {
      fmt::print(stderr, "tplab: {}: ending mpiexec -n {} and its ranks\n", signal_name(s), ranks);
      end_job(child, s == SIGHUP ? SIGTERM : s);
      relay.pass_on_rest();
      throw Interrupted(s);
    }
    if (Clock::now() > deadline) {
      fmt::print(stderr, "tplab: mpiexec -n {} ran past {} s; ending the job\n", ranks,
                 launch.timeout_seconds);
      end_job(child, SIGTERM);
      relay.pass_on_rest();
      return {kTimedOut, relay.last_message(), relay.lacked_slots(), relay.mpiexec_error()};
    }
    relay.pass_on(std::chrono::milliseconds(20));
  }
  relay.pass_on_rest();
  // mpiexec has ended; a process of the job it left behind (handed to tplab) ends too, and so
  // does one it forks while being ended: the sweep goes on until none is left.
  for (int sweep = 0; sweep < 1000; ++sweep) {
    const std::set<pid_t> left = descendants(getpid());
    if (left.empty()) break;
    for (pid_t p : left) kill(p, SIGKILL);
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }
  // mpiexec itself ended by a signal reads as a rank ended by it, as Open MPI reports those
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), relay.last_message(),
          relay.lacked_slots(), relay.mpiexec_error()};
}

}  // namespace tplab::app
