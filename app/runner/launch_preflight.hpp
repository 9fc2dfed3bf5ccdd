/// @file
/// The checks every launching command (verify, train, bench scaling, bench comm, lesson check,
/// model --calibrate and --compare) makes before it starts mpiexec: no more ranks than this
/// machine can sensibly run at once, and no more memory than it has available. Without them,
/// `bench comm --np 1000` started 1000 ranks, the kernel's OOM killer ended some and the load
/// average reached 200.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "launch_plan.hpp"

namespace tplab::app {

/// Memory each rank of tplab holds before any tensor of its own: the private (anonymous)
/// resident memory of a rank of a tiny verify job, measured from /proc/PID/status as
/// RssAnon = 97-98 MiB on every rank at 4 and at 27 ranks (Open MPI 4.1, OpenBLAS, oneDNN);
/// VmRSS was 172-209 MiB, the rest being shared library pages counted once for all ranks.
inline constexpr double kRankOverheadBytes = 100.0 * 0x1p20;

/// The most ranks one job may start without --allow-many-ranks: four per core this process
/// may run on, and at least 32, so that the default verify's largest job (3D on 27 ranks)
/// runs on two cores (there that job takes about 7 s, and ranks start at about 0.4 s each).
int rank_limit();

/// MemAvailable of /proc/meminfo in bytes, or 0 when unknown.
double available_memory_bytes();

/// Refuses with UsageError, before anything is launched: a job of more than rank_limit() ranks
/// (unless allow_many_ranks), a job whose ranks x (kRankOverheadBytes + tensors) exceeds
/// MemAvailable, and a TPLAB_INJECT_FAULT plan naming a rank that no job has. The jobs run one
/// after another, so the largest one must fit. With `hosts` machines (--hosts), all alike, each
/// runs at most ceil(np / hosts) of a job's ranks, and the limits hold per machine.
void preflight(const LaunchPlan& plan, bool allow_many_ranks, int hosts = 1);

/// Refuses with UsageError a process of this command that needs `bytes` more than MemAvailable
/// (for `dump`, which runs in this process). `what` names the need and `smaller` the cure.
void require_available_memory(double bytes, const std::string& what, const std::string& smaller);

}  // namespace tplab::app
