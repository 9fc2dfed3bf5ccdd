#include "comm/mpi_comm.hpp"

#include "comm/fault_injection.hpp"
#include "comm/mpi_call.hpp"
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
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    arm_fault_injection(rank, size);
  } catch (...) {
    MPI_Finalize();  // every rank refuses alike, so every rank can leave cleanly
    throw;
  }
}

MpiSession::~MpiSession() {
  report_unfired_fault();
  MPI_Finalize();
}

std::unique_ptr<MpiComm> MpiComm::world(std::shared_ptr<CommCounters> counters) {
  return std::unique_ptr<MpiComm>(new MpiComm(MpiGroup::world(), "world", std::move(counters)));
}

MpiComm::MpiComm(MpiGroup mpi, std::string group, std::shared_ptr<CommCounters> counters)
    : Comm(std::move(group), std::move(counters)), mpi_(std::move(mpi)) {}

void MpiComm::barrier() {
  mpi_.barrier();
}

std::unique_ptr<Comm> MpiComm::split(int color, int key, const std::string& group) {
  return std::unique_ptr<Comm>(new MpiComm(mpi_.split(color, key), group, shared_counters()));
}

void MpiComm::do_all_reduce(Tensor& x, ReduceOp op) {
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, x.data(), mpi_count(x), mpi_type(x),
                          op == ReduceOp::sum ? MPI_SUM : MPI_MAX, mpi_.handle()),
            "MPI_Allreduce");
}

void MpiComm::do_all_gather(const Tensor& shard, Tensor& full) {
  mpi_check(MPI_Allgather(shard.data(), mpi_count(shard), mpi_type(shard), full.data(),
                          mpi_count(shard), mpi_type(full), mpi_.handle()),
            "MPI_Allgather");
}

void MpiComm::do_reduce_scatter(const Tensor& full, Tensor& shard) {
  mpi_check(MPI_Reduce_scatter_block(full.data(), shard.data(), mpi_count(shard), mpi_type(full),
                                     MPI_SUM, mpi_.handle()),
            "MPI_Reduce_scatter_block");
}

void MpiComm::do_broadcast(Tensor& x, int root) {
  mpi_check(MPI_Bcast(x.data(), mpi_count(x), mpi_type(x), root, mpi_.handle()), "MPI_Bcast");
}

void MpiComm::do_reduce(const Tensor& in, Tensor& out, int root) {
  // The receive buffer matters on the root alone; elsewhere `out` may be `in` itself.
  const bool is_root = rank() == root;
  const bool in_place = is_root && in.data() == out.data();
  mpi_check(MPI_Reduce(in_place ? MPI_IN_PLACE : in.data(), is_root ? out.data() : nullptr,
                       mpi_count(in), mpi_type(in), MPI_SUM, root, mpi_.handle()),
            "MPI_Reduce");
}

std::unique_ptr<PendingTransport> MpiComm::do_start_all_reduce(Tensor& x, ReduceOp op) {
  auto pending = std::make_unique<MpiPending>(x, x);
  mpi_check(
      MPI_Iallreduce(MPI_IN_PLACE, x.data(), mpi_count(x), mpi_type(x),
                     op == ReduceOp::sum ? MPI_SUM : MPI_MAX, mpi_.handle(), pending->request()),
      "MPI_Iallreduce");
  return pending;
}

std::unique_ptr<PendingTransport> MpiComm::do_start_all_gather(const Tensor& shard, Tensor& full) {
  auto pending = std::make_unique<MpiPending>(shard, full);
  mpi_check(MPI_Iallgather(shard.data(), mpi_count(shard), mpi_type(shard), full.data(),
                           mpi_count(shard), mpi_type(full), mpi_.handle(), pending->request()),
            "MPI_Iallgather");
  return pending;
}

std::unique_ptr<PendingTransport> MpiComm::do_start_reduce_scatter(const Tensor& full,
                                                                   Tensor& shard) {
  auto pending = std::make_unique<MpiPending>(full, shard);
  mpi_check(MPI_Ireduce_scatter_block(full.data(), shard.data(), mpi_count(shard), mpi_type(full),
                                      MPI_SUM, mpi_.handle(), pending->request()),
            "MPI_Ireduce_scatter_block");
  return pending;
}

std::unique_ptr<PendingTransport> MpiComm::do_start_broadcast(Tensor& x, int root) {
  auto pending = std::make_unique<MpiPending>(x, x);
  mpi_check(
      MPI_Ibcast(x.data(), mpi_count(x), mpi_type(x), root, mpi_.handle(), pending->request()),
      "MPI_Ibcast");
  return pending;
}

}  // namespace tplab
