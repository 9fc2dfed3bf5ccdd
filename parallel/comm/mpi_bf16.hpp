/// @file
/// bf16 for MPI, which has no such type: the 16-bit patterns moved as MPI_UINT16_T, and sums
/// and maxima of them as MPI operations of tplab's own.
#pragma once

#include <mpi.h>

#include "comm/collective.hpp"

namespace tplab {

/// The MPI operation that reduces bf16 elements (as MPI_UINT16_T) by `op`: each pair widened
/// to f32, added (or compared), and the result rounded to the nearest bfloat16, ties to even.
/// A reduction over p ranks thus rounds after every addition, as NCCL sums bf16; the order of
/// the additions is MPI's. Made on first use (MPI must be initialised), kept until the end.
MPI_Op mpi_bf16_op(ReduceOp op);

}  // namespace tplab
