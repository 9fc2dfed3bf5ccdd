/// @file
/// Running on several machines: the `--hosts FILE` option (an Open MPI hostfile), checked
/// before anything is launched.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "mpi_launch.hpp"

namespace tplab::app {

/// One line of a hostfile: a host and the ranks it may run (`slots=N`; 0 when not given).
struct HostEntry {
  std::string name;  ///< the host's name or address, as mpiexec reaches it
  int slots = 0;     ///< `slots=N`, or 0 when the line gives none (Open MPI then counts cores)
};

/// Reads an Open MPI hostfile: one host a line, `name [slots=N] [max_slots=N]`, `#` comments.
/// Throws UsageError, naming the file and line, for a file that cannot be read or is not a
/// regular file (a named pipe, a device, a folder: refused before it is read, so nothing
/// blocks), a line whose counts are not positive integers, a host on two lines (both named),
/// or a file that names no host.
std::vector<HostEntry> read_hostfile(const std::string& path);

/// The hosts a hostfile lists (1 for "": this machine alone), for the launch's preflight.
int host_count(const std::string& hostfile);

/// The launch settings of a command whose largest job has `max_ranks` ranks: with a hostfile,
/// reads it (its absolute path is passed on, so every job sees the same file), refuses a job
/// larger than the slots it lists, and says which hosts the jobs will use.
LaunchSettings launch_settings(int timeout_seconds, const std::string& hostfile, int max_ranks);

}  // namespace tplab::app
