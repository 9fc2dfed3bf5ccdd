/// @file
/// mpi_check and mpi_count: what every raw MPI call of the MPI communicators needs.
#pragma once

#include "core/tensor.hpp"

namespace tplab {

/// Throws InternalError naming `call` with MPI's own message when `code` is not MPI_SUCCESS.
void mpi_check(int code, const char* call);

/// The elements of `t` as one MPI call's int count; throws InternalError past INT_MAX.
int mpi_count(const Tensor& t);

}  // namespace tplab
