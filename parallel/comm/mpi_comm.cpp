#include "comm/mpi_comm.hpp"

#include <fmt/format.h>

#include "comm/fault_injection.hpp"
#include "core/error.hpp"

namespace tplab {
namespace {

MPI_Datatype mpi_type(const Tensor& t) {
  if (t.device() != DeviceKind::cpu) {
    throw UsageError("MpiComm moves host memory; device tensors need NcclComm");
  }
  switch (t.dtype()) {
    case DType::f64:
      return MPI_DOUBLE;
    case DType::f32:
      return MPI_FLOAT;
    case DType::bf16:
      break;
  }
  throw UsageError("MpiComm moves f64 and f32 tensors; bf16 needs NcclComm");
}

int count_of(const Tensor& t) {
  // The message is formatted only on failure: this runs on every collective, small ones too.
  if (t.numel() > std::numeric_limits<int>::max()) {
    throw InternalError(
        fmt::format("tensor {} is too large for one MPI call", to_string(t.extents())));
  }
  return static_cast<int>(t.numel());
}

void mpi_check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw InternalError(fmt::format("{} failed: {}", call, std::string_view(text, length)));
}

/// An MPI request and the tensors it reads and writes, kept alive until it completes.
class MpiPending final : public PendingTransport {
 public:
  MpiPending(const Tensor& in, const Tensor& out) : in_(in), out_(out) {}
  MPI_Request* request() { return &request_; }
  void wait() override { mpi_check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait"); }

 private:
  MPI_Request request_ = MPI_REQUEST_NULL;
  Tensor in_, out_;
};

}  // namespace

MpiSession::MpiSession() {
  int provided = 0;
  mpi_check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    arm_fault_injection(rank);
  } catch (...) {
    MPI_Finalize();  // every rank refuses alike, so every rank can leave cleanly
    throw;
  }
}

MpiSession::~MpiSession() {
  MPI_Finalize();
}

std::unique_ptr<MpiComm> MpiComm::world(std::shared_ptr<CommCounters> counters) {
  return std::unique_ptr<MpiComm>(new MpiComm(MPI_COMM_WORLD, false, "world", std::move(counters)));
}

MpiComm::MpiComm(MPI_Comm comm, bool owned, std::string group,
                 std::shared_ptr<CommCounters> counters)
    : Comm(std::move(group), std::move(counters)), comm_(comm), owned_(owned) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiComm::~MpiComm() {
  if (owned_) MPI_Comm_free(&comm_);
}

void MpiComm::barrier() {
  mpi_check(MPI_Barrier(comm_), "MPI_Barrier");
}

std::unique_ptr<Comm> MpiComm::split(int color, int key, const std::string& group) {
  MPI_Comm sub = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split(comm_, color, key, &sub), "MPI_Comm_split");
  return std::unique_ptr<Comm>(new MpiComm(sub, true, group, shared_counters()));
}

void MpiComm::do_all_reduce(Tensor& x, ReduceOp op) {
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, x.data(), count_of(x), mpi_type(x),
                          op == ReduceOp::sum ? MPI_SUM : MPI_MAX, comm_),
            "MPI_Allreduce");
}

void MpiComm::do_all_gather(const Tensor& shard, Tensor& full) {
  mpi_check(MPI_Allgather(shard.data(), count_of(shard), mpi_type(shard), full.data(),
                          count_of(shard), mpi_type(full), comm_),
            "MPI_Allgather");
}

void MpiComm::do_reduce_scatter(const Tensor& full, Tensor& shard) {
  mpi_check(MPI_Reduce_scatter_block(full.data(), shard.data(), count_of(shard), mpi_type(full),
                                     MPI_SUM, comm_),
            "MPI_Reduce_scatter_block");
}

void MpiComm::do_broadcast(Tensor& x, int root) {
  mpi_check(MPI_Bcast(x.data(), count_of(x), mpi_type(x), root, comm_), "MPI_Bcast");
}

void MpiComm::do_reduce(const Tensor& in, Tensor& out, int root) {
  // The receive buffer matters on the root alone; elsewhere `out` may be `in` itself.
  const bool is_root = rank_ == root;
  const bool in_place = is_root && in.data() == out.data();
  mpi_check(MPI_Reduce(in_place ? MPI_IN_PLACE : in.data(), is_root ? out.data() : nullptr,
                       count_of(in), mpi_type(in), MPI_SUM, root, comm_),
            "MPI_Reduce");
}

std::unique_ptr<PendingTransport> MpiComm::do_start_all_reduce(Tensor& x, ReduceOp op) {
  auto pending = std::make_unique<MpiPending>(x, x);
  mpi_check(MPI_Iallreduce(MPI_IN_PLACE, x.data(), count_of(x), mpi_type(x),
                           op == ReduceOp::sum ? MPI_SUM : MPI_MAX, comm_, pending->request()),
            "MPI_Iallreduce");
  return pending;
}

std::unique_ptr<PendingTransport> MpiComm::do_start_all_gather(const Tensor& shard, Tensor& full) {
  auto pending = std::make_unique<MpiPending>(shard, full);
  mpi_check(MPI_Iallgather(shard.data(), count_of(shard), mpi_type(shard), full.data(),
                           count_of(shard), mpi_type(full), comm_, pending->request()),
            "MPI_Iallgather");
  return pending;
}

std::unique_ptr<PendingTransport> MpiComm::do_start_reduce_scatter(const Tensor& full,
                                                                   Tensor& shard) {
  auto pending = std::make_unique<MpiPending>(full, shard);
  mpi_check(MPI_Ireduce_scatter_block(full.data(), shard.data(), count_of(shard), mpi_type(full),
                                      MPI_SUM, comm_, pending->request()),
            "MPI_Ireduce_scatter_block");
  return pending;
}

std::unique_ptr<PendingTransport> MpiComm::do_start_broadcast(Tensor& x, int root) {
  auto pending = std::make_unique<MpiPending>(x, x);
  mpi_check(MPI_Ibcast(x.data(), count_of(x), mpi_type(x), root, comm_, pending->request()),
            "MPI_Ibcast");
  return pending;
}

}  // namespace tplab
