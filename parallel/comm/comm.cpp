#include "comm/comm.hpp"

#include <fmt/format.h>

#include <chrono>

#include "comm/fault_injection.hpp"
#include "core/error.hpp"

namespace tplab {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

}  // namespace

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
  const long index = before_collective(c, group_);
  const auto start = Clock::now();
  transport();
  const double seconds = transport_seconds(seconds_between(start, Clock::now()));
  add_noise_if_due(index, c, group_, result);
  if (nan_due(index, c, group_)) write_nan(result);
  if (size() == 1) return;  // nothing crossed a link
  counters_->record(c, group_, size(), logical.numel(), static_cast<std::int64_t>(logical.bytes()),
                    seconds, seconds);
}

template <typename F>
CommRequest Comm::started(Collective c, const Tensor& logical, const Tensor& result, F&& start) {
  if (recording_ == Recording::by_inner) {  // the inner Comm counts it when it completes
    std::shared_ptr<PendingTransport> pending = start();
    if (!pending) return {};
    return CommRequest([pending] { pending->wait(); });
  }
  const long index = before_collective(c, group_);
  const auto begin = Clock::now();
  std::shared_ptr<PendingTransport> pending = start();
  // A transport that completed at once may have timed itself on a device's stream.
  const double starting = pending ? seconds_between(begin, Clock::now())
                                  : transport_seconds(seconds_between(begin, Clock::now()));
  const std::int64_t elements = logical.numel();
  const auto bytes = static_cast<std::int64_t>(logical.bytes());
  // The request keeps the result's storage alive and records the collective once, when it
  // completes: the whole span from start to completion, and the part of it the caller waited.
  return CommRequest([this, c, index, begin, starting, elements, bytes, pending, result] {
    const auto waiting = Clock::now();
    if (pending) pending->wait();
    const auto end = Clock::now();
    Tensor written = result;  // the lambda's copy is const; both share the storage
    add_noise_if_due(index, c, group_, written);
    if (nan_due(index, c, group_)) write_nan(written);
    if (size() == 1) return;
    const double span = pending ? seconds_between(begin, end) : starting;
    counters_->record(c, group_, size(), elements, bytes, span,
                      starting + seconds_between(waiting, end));
  });
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

void Comm::all_reduce(Tensor& x, ReduceOp op) {
  counted(Collective::all_reduce, x, x, [&] { do_all_reduce(x, op); });
}

void Comm::all_gather(const Tensor& shard, Tensor& full) {
  check_gather(shard, full);
  counted(Collective::all_gather, full, full, [&] { do_all_gather(shard, full); });
}

void Comm::reduce_scatter(const Tensor& full, Tensor& shard) {
  check_scatter(full, shard);
  counted(Collective::reduce_scatter, full, shard, [&] { do_reduce_scatter(full, shard); });
}

void Comm::broadcast(Tensor& x, int root) {
  check_root(root, "broadcast");
  counted(Collective::broadcast, x, x, [&] { do_broadcast(x, root); });
}

void Comm::reduce(const Tensor& in, Tensor& out, int root) {
  check_root(root, "reduce");
  if (in.dtype() != out.dtype() || in.numel() != out.numel()) {
    throw InternalError(fmt::format("reduce on '{}': in {} out {}", group_, to_string(in.extents()),
                                    to_string(out.extents())));
  }
  counted(Collective::reduce, in, out, [&] { do_reduce(in, out, root); });
}

CommRequest Comm::start_all_reduce(Tensor& x, ReduceOp op) {
  return started(Collective::all_reduce, x, x, [&] { return do_start_all_reduce(x, op); });
}

CommRequest Comm::start_all_gather(const Tensor& shard, Tensor& full) {
  check_gather(shard, full);
  return started(Collective::all_gather, full, full,
                 [&] { return do_start_all_gather(shard, full); });
}

CommRequest Comm::start_reduce_scatter(const Tensor& full, Tensor& shard) {
  check_scatter(full, shard);
  return started(Collective::reduce_scatter, full, shard,
                 [&] { return do_start_reduce_scatter(full, shard); });
}

CommRequest Comm::start_broadcast(Tensor& x, int root) {
  check_root(root, "broadcast");
  return started(Collective::broadcast, x, x, [&] { return do_start_broadcast(x, root); });
}

void Comm::write_nan(Tensor& result) {
  if (result.device() == DeviceKind::cpu) return write_nan_on_host(result);
  throw UsageError(fmt::format(
      "TPLAB_INJECT_FAULT kind=nan: the {} communicator of group '{}' cannot write into device "
      "memory; inject the NaN with --comm nccl or --comm mpi (staged), which can",
      transport(), group_));
}

std::unique_ptr<PendingTransport> Comm::do_start_all_reduce(Tensor& x, ReduceOp op) {
  do_all_reduce(x, op);
  return nullptr;
}

std::unique_ptr<PendingTransport> Comm::do_start_all_gather(const Tensor& shard, Tensor& full) {
  do_all_gather(shard, full);
  return nullptr;
}

std::unique_ptr<PendingTransport> Comm::do_start_reduce_scatter(const Tensor& full, Tensor& shard) {
  do_reduce_scatter(full, shard);
  return nullptr;
}

std::unique_ptr<PendingTransport> Comm::do_start_broadcast(Tensor& x, int root) {
  do_broadcast(x, root);
  return nullptr;
}

}  // namespace tplab
