/// @file
/// wrap_transport: the chain of communicators every program uses around a transport.
#pragma once

#include <memory>

#include "comm/comm.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab {

/// `transport` (MpiComm, DeviceStagedComm, NcclComm) counted into `counters` by a
/// CountingComm, inside a FaultInjectingComm when TPLAB_INJECT_FAULT names this rank
/// (arm_fault_injection, which MpiSession calls); without a plan there is no fault wrapper at
/// all. With a `trace`, a TracingComm around the counted one puts every collective on the
/// rank's timeline; without one there is no tracing wrapper. Groups split from the result are
/// wrapped alike.
std::unique_ptr<Comm> wrap_transport(std::unique_ptr<Comm> transport,
                                     std::shared_ptr<CommCounters> counters,
                                     std::shared_ptr<TraceRecorder> trace = nullptr);

}  // namespace tplab
