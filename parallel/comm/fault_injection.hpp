/// @file
/// Failing one rank on purpose, to show that a failure ends the whole job with a message and
/// never leaves the other ranks waiting in a collective.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "comm/collective.hpp"
#include "core/tensor.hpp"

namespace tplab {

/// Reads TPLAB_INJECT_FAULT="rank=R,collective=K,kind=KIND" for the process of world rank
/// `world_rank`: the K-th collective (from 0, counting every group, sends and recvs too) that
/// rank R issues
///   kind=throw  throws an error before the transport (the rank reports it and aborts the job)
///   kind=exit   ends the process before the transport, as a crash would
///   kind=kill   kills the process with SIGKILL before the transport
///   kind=nan    completes, then puts a NaN in the first element of the result, in host or
///               device memory (the transport writes it: Comm::write_first_element); a send's
///               result is the tensor it sent, a recv's the tensor it received
///   kind=noise  completes, then multiplies the result's elements by 1 + 1e-12 and 1 - 1e-12
///               alternately (host memory; f64, since 1e-12 is below f32's round-off): an
///               error verify's f64 tolerance must see
/// Unset, nothing is injected. A malformed value throws UsageError on every rank alike. When
/// R is not a rank of this world of `world_size`, rank 0 says that nothing will be injected
/// here (a series of jobs may hold R in a larger one; its launcher refuses an R none holds).
void arm_fault_injection(int world_rank, int world_size);

/// True when arm_fault_injection found a plan for this rank: wrap_transport() then puts a
/// FaultInjectingComm in the chain.
bool fault_planned_here();

/// The rank TPLAB_INJECT_FAULT names, or nothing when it is unset; throws UsageError when it
/// is malformed. For launchers, which check the plan before any job starts.
std::optional<int> planned_fault_rank();

/// On the rank that was to fail: says so on stderr when it issued fewer collectives than the
/// plan's K, so that a fault that never fired is not taken for one that changed nothing.
void report_unfired_fault();

/// Called by FaultInjectingComm before every collective's transport starts: fails here if planned.
/// Returns the collective's number K, which the same collective hands to nan_due (a started
/// collective completes later, perhaps after others have started).
long before_collective(Collective collective, const std::string& group);
/// Called by FaultInjectingComm once a collective's transport has completed: true when the plan
/// puts a NaN into this collective's result now (said on stderr); the caller then writes it.
bool nan_due(long index, Collective collective, const std::string& group);
/// Called by FaultInjectingComm once a collective's transport has completed, with its result:
/// multiplies a host tensor's elements by 1 +- 1e-12 when the plan (kind=noise) says so now.
void add_noise_if_due(long index, Collective collective, const std::string& group, Tensor& result);

/// The bytes of a quiet NaN in `dtype`, to write over an element.
std::vector<std::byte> quiet_nan_bytes(DType dtype);

}  // namespace tplab
