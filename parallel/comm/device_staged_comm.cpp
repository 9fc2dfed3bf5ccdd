#include "comm/device_staged_comm.hpp"

#include <algorithm>

#include "comm/mpi_call.hpp"
#include "comm/mpi_transfer.hpp"
#include "core/bf16.hpp"
#include "core/error.hpp"

namespace tplab {
namespace {

/// x's bytes copied to the host for a send (x is on a device).
std::vector<std::byte> host_copy(const Tensor& x, StagingCopy& staging) {
  std::vector<std::byte> host(x.bytes());
  staging.to_host(x, host);
  return host;
}

/// A started send of x: its MPI request, and the host copy MPI reads (none for a host tensor,
/// which MPI reads directly).
class StagedSend final : public PendingTransport {
 public:
  StagedSend(const Tensor& x, StagingCopy& staging)
      : x_(x),
        host_(x.device() == DeviceKind::cpu ? std::vector<std::byte>() : host_copy(x, staging)) {}
  MPI_Request* request() { return &request_; }
  const void* data() const { return x_.device() == DeviceKind::cpu ? x_.data() : host_.data(); }
  void wait() override { mpi_check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait"); }

 private:
  MPI_Request request_ = MPI_REQUEST_NULL;
  Tensor x_;
  std::vector<std::byte> host_;
};

/// A started receive into x: its MPI request, and the host memory MPI writes (none for a host
/// tensor, which MPI writes directly), copied into x once the message has arrived.
class StagedReceive final : public PendingTransport {
 public:
  StagedReceive(Tensor& x, int peer, std::string group, std::shared_ptr<StagingCopy> staging)
      : x_(x),
        host_(x.device() == DeviceKind::cpu ? 0 : x.bytes()),
        peer_(peer),
        group_(std::move(group)),
        staging_(std::move(staging)) {}
  MPI_Request* request() { return &request_; }
  void* data() { return x_.device() == DeviceKind::cpu ? x_.data() : host_.data(); }
  void wait() override {
    mpi_wait_receive(&request_, x_, peer_, group_);
    if (x_.device() != DeviceKind::cpu) staging_->to_device(host_, x_);
  }

 private:
  MPI_Request request_ = MPI_REQUEST_NULL;
  Tensor x_;
  std::vector<std::byte> host_;
  int peer_;
  std::string group_;
  std::shared_ptr<StagingCopy> staging_;
};

}  // namespace

std::unique_ptr<DeviceStagedComm> DeviceStagedComm::world(std::shared_ptr<StagingCopy> staging) {
  return std::unique_ptr<DeviceStagedComm>(
      new DeviceStagedComm(MpiGroup::world(), "world", std::move(staging)));
}

DeviceStagedComm::DeviceStagedComm(MpiGroup mpi, std::string group,
                                   std::shared_ptr<StagingCopy> staging)
    : Comm(std::move(group)), mpi_(std::move(mpi)), staging_(std::move(staging)) {
  check(staging_ != nullptr, "DeviceStagedComm needs a staging copy");
}

void DeviceStagedComm::barrier() {
  mpi_.barrier();
}

std::unique_ptr<Comm> DeviceStagedComm::split(int color, int key, const std::string& group) {
  return std::unique_ptr<Comm>(new DeviceStagedComm(mpi_.split(color, key), group, staging_));
}

DeviceStagedComm::Staged DeviceStagedComm::stage(const Tensor& t, bool read) {
  Staged s;
  s.count = mpi_count(t);
  const bool widen = t.dtype() == DType::bf16;
  s.type = t.dtype() == DType::f64 ? MPI_DOUBLE : MPI_FLOAT;
  if (t.device() == DeviceKind::cpu && !widen) {
    s.data = const_cast<void*>(t.data());  // MPI's buffers are not const; inputs stay unchanged
    return s;
  }
  s.buffer.resize(static_cast<std::size_t>(s.count) *
                  (widen ? sizeof(float) : dtype_size(t.dtype())));
  s.data = s.buffer.data();
  if (!read) return s;
  std::vector<Bf16Bits> raw(widen ? static_cast<std::size_t>(s.count) : 0);
  const std::span<std::byte> bytes =
      widen ? std::as_writable_bytes(std::span(raw)) : std::span(s.buffer);
  if (t.device() == DeviceKind::cpu) {
    HostStagingCopy().to_host(t, bytes);
  } else {
    staging_->to_host(t, bytes);
  }
  if (widen) widen_bf16(raw, {reinterpret_cast<float*>(s.buffer.data()), raw.size()});
  return s;
}

void DeviceStagedComm::unstage(Staged& staged, Tensor& t) {
  if (staged.buffer.empty()) return;  // MPI wrote into t itself
  std::vector<Bf16Bits> raw;
  std::span<const std::byte> bytes(staged.buffer);
  if (t.dtype() == DType::bf16) {
    raw.resize(static_cast<std::size_t>(staged.count));
    round_to_bf16({reinterpret_cast<const float*>(staged.buffer.data()), raw.size()}, raw);
    bytes = std::as_bytes(std::span(raw));
  }
  if (t.device() == DeviceKind::cpu) {
    HostStagingCopy().to_device(bytes, t);
  } else {
    staging_->to_device(bytes, t);
  }
}

std::unique_ptr<DeviceInterval> DeviceStagedComm::run(const CollectiveCall& call) {
  switch (call.collective) {
    case Collective::all_reduce:
      all_reduce_staged(call.out, call.op);
      break;
    case Collective::all_gather:
      all_gather_staged(call.in, call.out);
      break;
    case Collective::reduce_scatter:
      reduce_scatter_staged(call.in, call.out);
      break;
    case Collective::broadcast:
      broadcast_staged(call.out, call.root);
      break;
    case Collective::reduce:
      reduce_staged(call.in, call.out, call.root);
      break;
    case Collective::send:
      send_staged(call.in, call.root);
      break;
    case Collective::recv:
      recv_staged(call.out, call.root);
      break;
  }
  return nullptr;
}

std::unique_ptr<PendingTransport> DeviceStagedComm::start(const CollectiveCall& call) {
  if (call.collective == Collective::send) {
    auto pending = std::make_unique<StagedSend>(call.in, *staging_);
    mpi_start_send(pending->data(), call.in, call.root, mpi_.handle(), pending->request());
    return pending;
  }
  if (call.collective == Collective::recv) {
    auto pending = std::make_unique<StagedReceive>(call.out, call.root, group(), staging_);
    mpi_start_receive(pending->data(), call.out, call.root, mpi_.handle(), pending->request());
    return pending;
  }
  return Comm::start(call);
}

void DeviceStagedComm::all_reduce_staged(Tensor& x, ReduceOp op) {
  Staged s = stage(x, true);
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, s.data, s.count, s.type,
                          op == ReduceOp::sum ? MPI_SUM : MPI_MAX, mpi_.handle()),
            "MPI_Allreduce");
  unstage(s, x);
}

void DeviceStagedComm::all_gather_staged(const Tensor& shard, Tensor& full) {
  Staged in = stage(shard, true);
  Staged out = stage(full, false);
  mpi_check(MPI_Allgather(in.data, in.count, in.type, out.data, in.count, out.type, mpi_.handle()),
            "MPI_Allgather");
  unstage(out, full);
}

void DeviceStagedComm::reduce_scatter_staged(const Tensor& full, Tensor& shard) {
  Staged in = stage(full, true);
  Staged out = stage(shard, false);
  mpi_check(MPI_Reduce_scatter_block(in.data, out.data, out.count, in.type, MPI_SUM, mpi_.handle()),
            "MPI_Reduce_scatter_block");
  unstage(out, shard);
}

void DeviceStagedComm::broadcast_staged(Tensor& x, int root) {
  const bool is_root = rank() == root;
  Staged s = stage(x, is_root);
  mpi_check(MPI_Bcast(s.data, s.count, s.type, root, mpi_.handle()), "MPI_Bcast");
  if (!is_root) unstage(s, x);
}

void DeviceStagedComm::reduce_staged(const Tensor& in, Tensor& out, int root) {
  // The result matters on the root alone; elsewhere `out` may be `in` itself and stays as is.
  const bool is_root = rank() == root;
  Staged send = stage(in, true);
  Staged receive = is_root ? stage(out, false) : Staged{};
  const bool in_place = is_root && send.data == receive.data;
  mpi_check(MPI_Reduce(in_place ? MPI_IN_PLACE : send.data, is_root ? receive.data : nullptr,
                       send.count, send.type, MPI_SUM, root, mpi_.handle()),
            "MPI_Reduce");
  if (is_root) unstage(receive, out);
}

void DeviceStagedComm::send_staged(const Tensor& x, int peer) {
  if (x.device() == DeviceKind::cpu) return mpi_send(x.data(), x, peer, mpi_.handle());
  const std::vector<std::byte> host = host_copy(x, *staging_);
  mpi_send(host.data(), x, peer, mpi_.handle());
}

void DeviceStagedComm::recv_staged(Tensor& x, int peer) {
  if (x.device() == DeviceKind::cpu) return mpi_receive(x.data(), x, peer, mpi_.handle(), group());
  std::vector<std::byte> host(x.bytes());
  mpi_receive(host.data(), x, peer, mpi_.handle(), group());
  staging_->to_device(host, x);
}

void DeviceStagedComm::write_first_element(Tensor& t, std::span<const std::byte> value) {
  if (t.device() == DeviceKind::cpu) return Comm::write_first_element(t, value);
  if (t.numel() == 0) return;
  std::vector<std::byte> host(t.bytes());
  staging_->to_host(t, host);
  std::copy(value.begin(), value.end(), host.begin());
  staging_->to_device(host, t);
}

}  // namespace tplab
