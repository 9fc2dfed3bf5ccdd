#include "comm/comm.hpp"

#include <fmt/format.h>

#include <chrono>

#include "comm/fault_injection.hpp"
#include "core/error.hpp"

namespace tplab {

Comm::Comm(std::string group, std::shared_ptr<CommCounters> counters, Recording recording)
    : group_(std::move(group)), counters_(std::move(counters)), recording_(recording) {
  check(counters_ != nullptr, "Comm needs counters");
}

template <typename F>
void Comm::counted(Collective c, const Tensor& logical, Tensor& result, F&& transport) {
  if (recording_ == Recording::by_inner) {  // the inner Comm counts it (and may fail it)
    transport();
    return;
  }
  before_collective(c, group_);
  const auto start = std::chrono::steady_clock::now();
  transport();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  after_collective(c, group_, result);
  if (size() == 1) return;  // nothing crossed a link
  counters_->record(c, group_, size(), logical.numel(), static_cast<std::int64_t>(logical.bytes()),
                    transport_seconds(elapsed.count()));
}

void Comm::all_reduce(Tensor& x, ReduceOp op) {
  counted(Collective::all_reduce, x, x, [&] { do_all_reduce(x, op); });
}

// The checks below format their message only when they fail: a collective of a few bytes
// takes well under a microsecond, and formatting a message on every call would double it.

void Comm::all_gather(const Tensor& shard, Tensor& full) {
  if (shard.dtype() != full.dtype() || shard.numel() * size() != full.numel()) {
    throw InternalError(fmt::format("all_gather on '{}': shard {} x {} ranks != full {}", group_,
                                    to_string(shard.extents()), size(), to_string(full.extents())));
  }
  counted(Collective::all_gather, full, full, [&] { do_all_gather(shard, full); });
}

void Comm::reduce_scatter(const Tensor& full, Tensor& shard) {
  if (shard.dtype() != full.dtype() || shard.numel() * size() != full.numel()) {
    throw InternalError(fmt::format("reduce_scatter on '{}': full {} != shard {} x {} ranks",
                                    group_, to_string(full.extents()), to_string(shard.extents()),
                                    size()));
  }
  counted(Collective::reduce_scatter, full, shard, [&] { do_reduce_scatter(full, shard); });
}

void Comm::broadcast(Tensor& x, int root) {
  if (root < 0 || root >= size()) {
    throw InternalError(fmt::format("broadcast root {} on '{}'", root, group_));
  }
  counted(Collective::broadcast, x, x, [&] { do_broadcast(x, root); });
}

void Comm::reduce(const Tensor& in, Tensor& out, int root) {
  if (root < 0 || root >= size()) {
    throw InternalError(fmt::format("reduce root {} on '{}'", root, group_));
  }
  if (in.dtype() != out.dtype() || in.numel() != out.numel()) {
    throw InternalError(fmt::format("reduce on '{}': in {} out {}", group_, to_string(in.extents()),
                                    to_string(out.extents())));
  }
  counted(Collective::reduce, in, out, [&] { do_reduce(in, out, root); });
}

}  // namespace tplab
