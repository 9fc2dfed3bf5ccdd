/// @file
/// The file a job's rank 0 writes its result to, checked before the job's first collective.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tplab::app {

/// Checks on rank 0, the rank that writes it, that `path` can take the result
/// (require_result_target), and makes every rank of MPI_COMM_WORLD agree: rank 0 throws the
/// UsageError that says why, the others one that points at rank 0's message. Nothing happens
/// without a path. Collective over MPI_COMM_WORLD: call it before any other.
void require_rank0_output(const std::optional<std::string>& path, std::string_view option);

}  // namespace tplab::app
