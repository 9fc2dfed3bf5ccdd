/// @file
/// Failing one rank on purpose, to show that a failure ends the whole job with a message and
/// never leaves the other ranks waiting in a collective.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "comm/collective.hpp"
#include "core/tensor.hpp"

namespace tplab {

/// Reads TPLAB_INJECT_FAULT="rank=R,collective=K,kind=KIND" for the process of world rank
/// `world_rank`: the K-th collective (from 0, counting every group) that rank R issues
///   kind=throw  throws an error before the transport (the rank reports it and aborts the job)
///   kind=exit   ends the process before the transport, as a crash would
///   kind=kill   kills the process with SIGKILL before the transport
///   kind=nan    completes, then puts a NaN in the first element of the result, in host or
///               device memory (the communicator writes it: Comm::write_nan)
/// Unset, nothing is injected. A malformed value throws UsageError on every rank alike.
void arm_fault_injection(int world_rank);

/// Called by every collective before its transport starts: fails here if planned. Returns the
/// collective's number K, which the same collective hands to nan_due (a started collective
/// completes later, perhaps after others have started).
long before_collective(Collective collective, const std::string& group);
/// Called by every collective once its transport has completed: true when the plan puts a NaN
/// into this collective's result now (said on stderr); the collective then writes it.
bool nan_due(long index, Collective collective, const std::string& group);

/// The bytes of a quiet NaN in `dtype`, to write over an element.
std::vector<std::byte> quiet_nan_bytes(DType dtype);
/// Writes a quiet NaN over the first element of `t`, a tensor in host memory.
void write_nan_on_host(Tensor& t);

}  // namespace tplab
