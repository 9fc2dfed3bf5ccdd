#include "comm/comm.hpp"

#include <fmt/format.h>

#include <cstring>

#include "core/error.hpp"

namespace tplab {
namespace {

/// A request that completes `pending`, or one already complete.
CommRequest request_for(std::unique_ptr<PendingTransport> pending) {
  if (!pending) return {};
  std::shared_ptr<PendingTransport> shared = std::move(pending);
  return CommRequest([shared] { shared->wait(); });
}

}  // namespace

Comm::Comm(std::string group) : group_(std::move(group)) {}

CommCounters& Comm::counters() {
  throw UsageError(fmt::format(
      "the {} communicator of group '{}' keeps no counters: wrap it with wrap_transport() (or a "
      "CountingComm) to count its collectives",
      transport(), group_));
}

// The checks below format their message only when they fail: a collective of a few bytes
// takes well under a microsecond, and formatting a message on every call would double it.

void Comm::check_gather(const Tensor& shard, const Tensor& full) const {
  if (shard.dtype() != full.dtype() || shard.numel() * size() != full.numel()) {
    throw InternalError(fmt::format("all_gather on '{}': shard {} x {} ranks != full {}", group_,
                                    to_string(shard.extents()), size(), to_string(full.extents())));
  }
}

void Comm::check_scatter(const Tensor& full, const Tensor& shard) const {
  if (shard.dtype() != full.dtype() || shard.numel() * size() != full.numel()) {
    throw InternalError(fmt::format("reduce_scatter on '{}': full {} != shard {} x {} ranks",
                                    group_, to_string(full.extents()), to_string(shard.extents()),
                                    size()));
  }
}

void Comm::check_root(int root, const char* collective) const {
  if (root < 0 || root >= size()) {
    throw InternalError(fmt::format("{} root {} on '{}'", collective, root, group_));
  }
}

void Comm::check_peer(int peer, const char* transfer) const {
  if (peer < 0 || peer >= size() || peer == rank()) {
    throw InternalError(fmt::format(
        "{} peer {} on '{}': the peer must be another rank of the group (0-{}, this one {})",
        transfer, peer, group_, size() - 1, rank()));
  }
}

void Comm::check_reduce(const Tensor& in, const Tensor& out) const {
  if (in.dtype() != out.dtype() || in.numel() != out.numel()) {
    throw InternalError(fmt::format("reduce on '{}': in {} out {}", group_, to_string(in.extents()),
                                    to_string(out.extents())));
  }
}

void Comm::all_reduce(Tensor& x, ReduceOp op) {
  run({Collective::all_reduce, x, x, op});
}

void Comm::all_gather(const Tensor& shard, Tensor& full) {
  check_gather(shard, full);
  run({Collective::all_gather, shard, full});
}

void Comm::reduce_scatter(const Tensor& full, Tensor& shard) {
  check_scatter(full, shard);
  run({Collective::reduce_scatter, full, shard});
}

void Comm::broadcast(Tensor& x, int root) {
  check_root(root, "broadcast");
  run({Collective::broadcast, x, x, ReduceOp::sum, root});
}

void Comm::reduce(const Tensor& in, Tensor& out, int root) {
  check_root(root, "reduce");
  check_reduce(in, out);
  run({Collective::reduce, in, out, ReduceOp::sum, root});
}

CommRequest Comm::start_all_reduce(Tensor& x, ReduceOp op) {
  return request_for(start({Collective::all_reduce, x, x, op}));
}

CommRequest Comm::start_all_gather(const Tensor& shard, Tensor& full) {
  check_gather(shard, full);
  return request_for(start({Collective::all_gather, shard, full}));
}

CommRequest Comm::start_reduce_scatter(const Tensor& full, Tensor& shard) {
  check_scatter(full, shard);
  return request_for(start({Collective::reduce_scatter, full, shard}));
}

CommRequest Comm::start_broadcast(Tensor& x, int root) {
  check_root(root, "broadcast");
  return request_for(start({Collective::broadcast, x, x, ReduceOp::sum, root}));
}

// A send writes nothing: x is its call's `out` only because every call has one (as the root's
// x of a broadcast, which only reads it).

void Comm::send(const Tensor& x, int peer) {
  check_peer(peer, "send");
  run({Collective::send, x, const_cast<Tensor&>(x), ReduceOp::sum, peer});
}

void Comm::recv(Tensor& x, int peer) {
  check_peer(peer, "recv");
  run({Collective::recv, x, x, ReduceOp::sum, peer});
}

CommRequest Comm::start_send(const Tensor& x, int peer) {
  check_peer(peer, "send");
  return request_for(start({Collective::send, x, const_cast<Tensor&>(x), ReduceOp::sum, peer}));
}

CommRequest Comm::start_recv(Tensor& x, int peer) {
  check_peer(peer, "recv");
  return request_for(start({Collective::recv, x, x, ReduceOp::sum, peer}));
}

std::unique_ptr<PendingTransport> Comm::start(const CollectiveCall& call) {
  run(call);
  return nullptr;
}

void Comm::write_first_element(Tensor& t, std::span<const std::byte> value) {
  if (t.device() != DeviceKind::cpu) {
    throw UsageError(fmt::format(
        "the {} communicator of group '{}' cannot write into device memory; use --comm nccl or "
        "--comm mpi (staged), which can",
        transport(), group_));
  }
  if (t.numel() > 0) std::memcpy(t.data(), value.data(), value.size());
}

}  // namespace tplab
