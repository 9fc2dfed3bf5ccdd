/// @file
/// Failing one rank on purpose, to show that a failure ends the whole job with a message and
/// never leaves the other ranks waiting in a collective.
#pragma once

#include <string>

#include "comm/collective.hpp"
#include "core/tensor.hpp"

namespace tplab {

/// Reads TPLAB_INJECT_FAULT="rank=R,collective=K,kind=KIND" for the process of world rank
/// `world_rank`: the K-th collective (from 0, counting every group) that rank R issues
///   kind=throw  throws an error before the transport (the rank reports it and aborts the job)
///   kind=exit   ends the process before the transport, as a crash would
///   kind=kill   kills the process with SIGKILL before the transport
///   kind=nan    completes, then puts a NaN in the first element of the result (host memory)
/// Unset, nothing is injected. A malformed value throws UsageError on every rank alike.
void arm_fault_injection(int world_rank);

/// Called by every collective before its transport starts: fails here if planned. Returns the
/// collective's number K, which the same collective hands to after_collective (a started
/// collective completes later, perhaps after others have started).
long before_collective(Collective collective, const std::string& group);
/// Called by every collective once its transport has completed: corrupts `result` if planned.
void after_collective(long index, Collective collective, const std::string& group, Tensor& result);

}  // namespace tplab
