#include "comm/mpi_comm.hpp"

#include "comm/fault_injection.hpp"
#include "comm/mpi_bf16.hpp"
#include "comm/mpi_call.hpp"
#include "comm/mpi_transfer.hpp"
#include "core/error.hpp"

namespace tplab {
namespace {

/// Throws UsageError for a tensor in device memory.
void require_host(const Tensor& t) {
  if (t.device() != DeviceKind::cpu) {
    throw UsageError("MpiComm moves host memory; device tensors need NcclComm");
  }
}

MPI_Datatype mpi_type(const Tensor& t) {
  require_host(t);
  switch (t.dtype()) {
    case DType::f64:
      return MPI_DOUBLE;
    case DType::f32:
      return MPI_FLOAT;
    case DType::bf16:
      return MPI_UINT16_T;  // the bit patterns; mpi_op reduces them as bf16
  }
  throw InternalError("MpiComm: a tensor of no known dtype");
}

/// `op` on elements of t's dtype: MPI's own for f64 and f32, tplab's for bf16 (mpi_bf16.hpp).
MPI_Op mpi_op(ReduceOp op, const Tensor& t) {
  if (t.dtype() == DType::bf16) return mpi_bf16_op(op);
  return op == ReduceOp::sum ? MPI_SUM : MPI_MAX;
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

/// A started receive into x, whose size is checked when it completes.
class MpiReceivePending final : public PendingTransport {
 public:
  MpiReceivePending(const Tensor& x, int peer, std::string group)
      : x_(x), peer_(peer), group_(std::move(group)) {}
  MPI_Request* request() { return &request_; }
  void wait() override { mpi_wait_receive(&request_, x_, peer_, group_); }

 private:
  MPI_Request request_ = MPI_REQUEST_NULL;
  Tensor x_;
  int peer_;
  std::string group_;
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

std::unique_ptr<MpiComm> MpiComm::world() {
  return std::unique_ptr<MpiComm>(new MpiComm(MpiGroup::world(), "world"));
}

MpiComm::MpiComm(MpiGroup mpi, std::string group) : Comm(std::move(group)), mpi_(std::move(mpi)) {}

void MpiComm::barrier() {
  mpi_.barrier();
}

std::unique_ptr<Comm> MpiComm::split(int color, int key, const std::string& group) {
  return std::unique_ptr<Comm>(new MpiComm(mpi_.split(color, key), group));
}

std::unique_ptr<DeviceInterval> MpiComm::run(const CollectiveCall& call) {
  const Tensor& in = call.in;
  Tensor& out = call.out;
  const MPI_Comm comm = mpi_.handle();
  switch (call.collective) {
    case Collective::all_reduce:
      mpi_check(MPI_Allreduce(MPI_IN_PLACE, out.data(), mpi_count(out), mpi_type(out),
                              mpi_op(call.op, out), comm),
                "MPI_Allreduce");
      break;
    case Collective::all_gather:
      mpi_check(MPI_Allgather(in.data(), mpi_count(in), mpi_type(in), out.data(), mpi_count(in),
                              mpi_type(out), comm),
                "MPI_Allgather");
      break;
    case Collective::reduce_scatter:
      mpi_check(MPI_Reduce_scatter_block(in.data(), out.data(), mpi_count(out), mpi_type(in),
                                         mpi_op(ReduceOp::sum, in), comm),
                "MPI_Reduce_scatter_block");
      break;
    case Collective::broadcast:
      mpi_check(MPI_Bcast(out.data(), mpi_count(out), mpi_type(out), call.root, comm), "MPI_Bcast");
      break;
    case Collective::reduce:
      reduce_on_root(in, out, call.root);
      break;
    case Collective::send:
      require_host(in);
      mpi_send(in.data(), in, call.root, comm);
      break;
    case Collective::recv:
      require_host(out);
      mpi_receive(out.data(), out, call.root, comm, group());
      break;
  }
  return nullptr;
}

void MpiComm::reduce_on_root(const Tensor& in, Tensor& out, int root) {
  // The receive buffer matters on the root alone; elsewhere `out` may be `in` itself.
  const bool is_root = rank() == root;
  const bool in_place = is_root && in.data() == out.data();
  mpi_check(MPI_Reduce(in_place ? MPI_IN_PLACE : in.data(), is_root ? out.data() : nullptr,
                       mpi_count(in), mpi_type(in), mpi_op(ReduceOp::sum, in), root, mpi_.handle()),
            "MPI_Reduce");
}

std::unique_ptr<PendingTransport> MpiComm::start(const CollectiveCall& call) {
  if (call.collective == Collective::reduce) return Comm::start(call);
  if (call.collective == Collective::recv) return start_receive(call.out, call.root);
  const Tensor& in = call.in;
  Tensor& out = call.out;
  const MPI_Comm comm = mpi_.handle();
  auto pending = std::make_unique<MpiPending>(in, out);
  MPI_Request* request = pending->request();
  switch (call.collective) {
    case Collective::all_reduce:
      mpi_check(MPI_Iallreduce(MPI_IN_PLACE, out.data(), mpi_count(out), mpi_type(out),
                               mpi_op(call.op, out), comm, request),
                "MPI_Iallreduce");
      break;
    case Collective::all_gather:
      mpi_check(MPI_Iallgather(in.data(), mpi_count(in), mpi_type(in), out.data(), mpi_count(in),
                               mpi_type(out), comm, request),
                "MPI_Iallgather");
      break;
    case Collective::reduce_scatter:
      mpi_check(MPI_Ireduce_scatter_block(in.data(), out.data(), mpi_count(out), mpi_type(in),
                                          mpi_op(ReduceOp::sum, in), comm, request),
                "MPI_Ireduce_scatter_block");
      break;
    case Collective::broadcast:
      mpi_check(MPI_Ibcast(out.data(), mpi_count(out), mpi_type(out), call.root, comm, request),
                "MPI_Ibcast");
      break;
    case Collective::send:
      require_host(in);
      mpi_start_send(in.data(), in, call.root, comm, request);
      break;
    case Collective::reduce:
    case Collective::recv:
      break;
  }
  return pending;
}

std::unique_ptr<PendingTransport> MpiComm::start_receive(Tensor& x, int peer) {
  require_host(x);
  auto pending = std::make_unique<MpiReceivePending>(x, peer, group());
  mpi_start_receive(x.data(), x, peer, mpi_.handle(), pending->request());
  return pending;
}

}  // namespace tplab
