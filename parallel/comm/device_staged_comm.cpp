#include "comm/device_staged_comm.hpp"

#include <algorithm>

#include "comm/mpi_call.hpp"
#include "core/bf16.hpp"
#include "core/error.hpp"

namespace tplab {

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
  }
  return nullptr;
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

void DeviceStagedComm::write_first_element(Tensor& t, std::span<const std::byte> value) {
  if (t.device() == DeviceKind::cpu) return Comm::write_first_element(t, value);
  if (t.numel() == 0) return;
  std::vector<std::byte> host(t.bytes());
  staging_->to_host(t, host);
  std::copy(value.begin(), value.end(), host.begin());
  staging_->to_device(host, t);
}

}  // namespace tplab
