#include "comm/mpi_transfer.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <limits>
#include <vector>

#include "comm/mpi_call.hpp"
#include "core/error.hpp"

namespace tplab {
namespace {

/// The bytes of `x` as one MPI call's count of MPI_BYTE; throws InternalError past INT_MAX.
int byte_count(const Tensor& x) {
  if (x.bytes() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw InternalError(fmt::format("tensor {} of {} bytes is too large for one MPI transfer",
                                    to_string(x.extents()), x.bytes()));
  }
  return static_cast<int>(x.bytes());
}

/// The error of a receive into x from `peer` that got a message of `arrived` bytes instead.
InternalError wrong_size(int arrived, const Tensor& x, int peer, const std::string& group) {
  return InternalError(fmt::format(
      "recv from {} on '{}': a message of {} bytes arrived for {} {} of {} bytes; the sender's "
      "tensor must have the receiver's extents and dtype",
      peer, group, arrived, to_string(x.extents()), dtype_name(x.dtype()), x.bytes()));
}

}  // namespace

void mpi_send(const void* data, const Tensor& x, int peer, MPI_Comm comm) {
  mpi_check(MPI_Send(data, byte_count(x), MPI_BYTE, peer, kTransferTag, comm), "MPI_Send");
}

void mpi_start_send(const void* data, const Tensor& x, int peer, MPI_Comm comm,
                    MPI_Request* request) {
  mpi_check(MPI_Isend(data, byte_count(x), MPI_BYTE, peer, kTransferTag, comm, request),
            "MPI_Isend");
}

void mpi_receive(void* data, const Tensor& x, int peer, MPI_Comm comm, const std::string& group) {
  // A matched probe takes the message out of matching, so that its size is known before any
  // byte is received, and no other receive can take it meanwhile.
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Status status;
  mpi_check(MPI_Mprobe(peer, kTransferTag, comm, &message, &status), "MPI_Mprobe");
  int arrived = 0;
  mpi_check(MPI_Get_count(&status, MPI_BYTE, &arrived), "MPI_Get_count");
  if (arrived != byte_count(x)) {
    std::vector<std::byte> dropped(static_cast<std::size_t>(arrived));
    mpi_check(MPI_Mrecv(dropped.data(), arrived, MPI_BYTE, &message, MPI_STATUS_IGNORE),
              "MPI_Mrecv");
    throw wrong_size(arrived, x, peer, group);
  }
  mpi_check(MPI_Mrecv(data, arrived, MPI_BYTE, &message, MPI_STATUS_IGNORE), "MPI_Mrecv");
}

void mpi_start_receive(void* data, const Tensor& x, int peer, MPI_Comm comm, MPI_Request* request) {
  mpi_check(MPI_Irecv(data, byte_count(x), MPI_BYTE, peer, kTransferTag, comm, request),
            "MPI_Irecv");
}

void mpi_wait_receive(MPI_Request* request, const Tensor& x, int peer, const std::string& group) {
  MPI_Status status;
  mpi_check(MPI_Wait(request, &status), "MPI_Wait");
  int arrived = 0;
  mpi_check(MPI_Get_count(&status, MPI_BYTE, &arrived), "MPI_Get_count");
  if (arrived != byte_count(x)) throw wrong_size(arrived, x, peer, group);
}

}  // namespace tplab
