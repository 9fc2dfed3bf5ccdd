/// @file
/// The MPI sends and receives of MpiComm and DeviceStagedComm: one tag, a tensor's bytes as
/// MPI_BYTE, and receives that refuse a message of another size.
#pragma once

#include <mpi.h>

#include <string>

#include "core/tensor.hpp"

namespace tplab {

/// The tag of every send and recv. MPI delivers the messages from one rank to another on one
/// communicator in the order they were sent, so one tag keeps the transfers in order.
inline constexpr int kTransferTag = 1;

/// Sends the bytes of `x`, read from `data` (x's own memory, or a copy of it on the host), to
/// rank `peer` of `comm`; returns once `data` may be changed again.
void mpi_send(const void* data, const Tensor& x, int peer, MPI_Comm comm);
/// The same send, started: `data` must not change until `request` completes.
void mpi_start_send(const void* data, const Tensor& x, int peer, MPI_Comm comm,
                    MPI_Request* request);

/// Receives the next message from rank `peer` of `comm` into `data`, room for the bytes of `x`.
/// A message of another size is received, dropped, and refused with InternalError naming
/// `group`: `data` is left unwritten.
void mpi_receive(void* data, const Tensor& x, int peer, MPI_Comm comm, const std::string& group);
/// The same receive, started; mpi_wait_receive completes it.
void mpi_start_receive(void* data, const Tensor& x, int peer, MPI_Comm comm, MPI_Request* request);
/// Completes a receive started by mpi_start_receive with the same `x` and `peer`. A shorter
/// message than x's bytes is refused with InternalError naming `group`; a longer one MPI refuses
/// itself (MPI_ERR_TRUNCATE, which MPI's default error handler makes end the job) and writes no
/// byte past x's.
void mpi_wait_receive(MPI_Request* request, const Tensor& x, int peer, const std::string& group);

}  // namespace tplab
