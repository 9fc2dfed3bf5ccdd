#include "stderr_relay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "core/error.hpp"

namespace tplab::app {
namespace {

/// Open MPI's words when it has fewer slots than ranks were asked for.
constexpr std::string_view kNotEnoughSlots = "not enough slots";

/// Open MPI's words when a rank ended its process without MPI_Finalize, and what they mean.
constexpr std::string_view kExitedImproperly = "exiting improperly";
constexpr std::string_view kExitedImproperlyMeans =
    "a rank's process exited without finalizing MPI (mpiexec: \"exiting improperly\"): code "
    "that exits, rather than returns, ended it";

/// Open MPI's words when it could not start or run a job (mpiexec, its daemons, PMIx).
constexpr std::string_view kOpenMpiFailures[] = {
    "unable to reliably start one or more daemons",
    "unable to launch the specified application",
    "daemon has unexpectedly failed",
    "orte_init failed",
    "opal_init failed",
    "ORTE_ERROR_LOG",
    "PMIX ERROR",
    "Out of resource",
    "A system call failed during shared memory initialization",
};

/// The part of `text` from its Open MPI error marker on ("[host:pid] [[j,0],0] ORTE_ERROR_LOG:
/// Out of resource ..." without its prefix), or `text` when it has none; "" when it is not one
/// of Open MPI's failures.
std::string_view open_mpi_failure(std::string_view text) {
  for (std::string_view words : kOpenMpiFailures) {
    const auto at = text.find(words);
    if (at == std::string_view::npos) continue;
    return words.starts_with("ORTE_") || words.starts_with("PMIX") ? text.substr(at) : text;
  }
  return {};
}

std::string_view trimmed(std::string_view line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = line.find_last_not_of(" \t\r");
  return line.substr(first, last - first + 1);
}

}  // namespace

StderrRelay::StderrRelay() {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) throw InternalError("could not make a pipe for mpiexec");
  read_end_ = FileDescriptor(ends[0]);
  write_end_ = FileDescriptor(ends[1]);
}

void StderrRelay::attach_in_child() const {
  dup2(write_end_.get(), STDERR_FILENO);
}

void StderrRelay::detach_in_parent() {
  write_end_.close();
}

void StderrRelay::pass_on(std::chrono::milliseconds wait) {
  if (closed_) {
    poll(nullptr, 0, static_cast<int>(wait.count()));
    return;
  }
  pollfd ready{read_end_.get(), POLLIN, 0};
  if (poll(&ready, 1, static_cast<int>(wait.count())) <= 0) return;
  char buffer[4096];
  const ssize_t got = ::read(read_end_.get(), buffer, sizeof buffer);
  if (got < 0 && errno == EINTR) return;
  if (got <= 0) {  // every writer has closed it
    closed_ = true;
    take_line(partial_);
    partial_.clear();
    return;
  }
  const std::string_view bytes(buffer, static_cast<std::size_t>(got));
  for (std::string_view rest = bytes; !rest.empty();) {
    const ssize_t wrote = ::write(STDERR_FILENO, rest.data(), rest.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) break;  // our own stderr is gone: keep reading, so the job never blocks
    rest.remove_prefix(static_cast<std::size_t>(wrote));
  }
  take(bytes);
}

void StderrRelay::pass_on_rest() {
  constexpr auto kQuiet = std::chrono::milliseconds(200);
  while (!closed_) {
    pollfd ready{read_end_.get(), POLLIN, 0};
    if (poll(&ready, 1, static_cast<int>(kQuiet.count())) <= 0) break;
    pass_on(std::chrono::milliseconds(0));
  }
  if (!partial_.empty()) {
    take_line(partial_);
    partial_.clear();
  }
}

std::string StderrRelay::last_message() const {
  return !last_explanation_.empty() ? last_explanation_ : last_line_;
}

void StderrRelay::take(std::string_view bytes) {
  for (char c : bytes) {
    if (c != '\n') {
      partial_ += c;
      continue;
    }
    take_line(partial_);
    partial_.clear();
  }
}

void StderrRelay::take_line(std::string_view line) {
  const std::string_view text = trimmed(line);
  if (text.empty()) return;
  if (text.find_first_not_of('-') == std::string_view::npos) {
    in_help_block_ = !in_help_block_;
    return;
  }
  last_line_ = text;
  // tplab's own programs (and the lessons, "lesson 03: ...") say what went wrong first-hand;
  // so does mpiexec's first line when it has too few slots (the rest is advice).
  if (text.starts_with("tplab") || text.starts_with("lesson ")) {
    last_explanation_ = text;
    ranks_explained_ = true;
    return;
  }
  take_open_mpi_line(text);
}

void StderrRelay::take_open_mpi_line(std::string_view text) {
  if (text.find(kExitedImproperly) != std::string_view::npos) {
    // Its help block's last line ("You can avoid this message ...") says nothing of the job.
    if (last_explanation_.empty()) last_explanation_ = kExitedImproperlyMeans;
  } else if (text.find(kNotEnoughSlots) != std::string_view::npos) {
    lacked_slots_ = true;
    if (last_explanation_.empty()) last_explanation_ = text;
  } else if (const std::string_view failure = open_mpi_failure(text);
             !failure.empty() && mpiexec_error_.empty()) {
    mpiexec_error_ = failure;
    if (in_help_block_ && !cause_.empty()) {
      if (mpiexec_error_.ends_with('.')) mpiexec_error_.pop_back();
      mpiexec_error_ += " (" + cause_ + ")";
    }
    if (last_explanation_.empty()) last_explanation_ = mpiexec_error_;
  }
  if (!in_help_block_) cause_ = text;
}

}  // namespace tplab::app
