/// @file
/// write_trace_file: every rank's timeline (trace/trace_recorder.hpp) in one Chrome trace-event
/// file, written by rank 0 once a job's work is done.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>

#include "trace/trace_recorder.hpp"

namespace tplab::app {

/// The events a rank's trace keeps: TPLAB_TRACE_EVENTS when set (a whole number of at least
/// 1000; else UsageError), else TraceRecorder::kDefaultCapacity.
std::size_t trace_capacity();

/// Starts every rank's `trace` together and traces `device`'s operations: after one barrier,
/// the ranks on rank 0's host take rank 0's instant of the steady clock they share as their
/// origin (so their tracks line up exactly, however the barrier's exits were spread among
/// oversubscribed ranks), the others their own exit from the barrier. Collective over `world`.
void start_trace_clock(TraceRecorder& trace, MPI_Comm world);

/// Writes every rank's `trace` (made with pid rank + 1) to `path` on rank 0 of `world`: one
/// Chrome trace-event file, rank r's process named "rank r (`device`)", `description` (the
/// device's) in its otherData. Says on stderr how many events a rank dropped past the cap, if any
/// did. Collective over `world`.
void write_trace_file(TraceRecorder& trace, MPI_Comm world, const std::string& path,
                      const std::string& device, const std::string& description);

}  // namespace tplab::app
