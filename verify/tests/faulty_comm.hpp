// FaultyComm: a Comm that forwards to a real one but drops chosen collectives, to prove that
// verify notices a missing all-reduce.
#pragma once

#include "comm/comm.hpp"

namespace tplab::verify {

/// Forwards every collective to `inner`, except the all-reduces whose 0-based index (counted
/// on this communicator and the groups split from it) is in `skipped`: those do nothing.
class FaultyComm final : public Comm {
 public:
  FaultyComm(Comm& inner, std::shared_ptr<std::vector<int>> skipped,
             std::shared_ptr<int> all_reduce_count);
  /// Wraps an owned communicator (the groups this one splits off).
  FaultyComm(std::unique_ptr<Comm> owned, std::shared_ptr<std::vector<int>> skipped,
             std::shared_ptr<int> all_reduce_count);

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  void barrier() override { inner_->barrier(); }
  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;

 protected:
  void do_all_reduce(Tensor& x, ReduceOp op) override;
  void do_all_gather(const Tensor& shard, Tensor& full) override {
    inner_->all_gather(shard, full);
  }
  void do_reduce_scatter(const Tensor& full, Tensor& shard) override {
    inner_->reduce_scatter(full, shard);
  }
  void do_broadcast(Tensor& x, int root) override { inner_->broadcast(x, root); }
  void do_reduce(const Tensor& in, Tensor& out, int root) override {
    inner_->reduce(in, out, root);
  }

 private:
  std::unique_ptr<Comm> owned_;
  Comm* inner_;
  std::shared_ptr<std::vector<int>> skipped_;
  std::shared_ptr<int> count_;
};

}  // namespace tplab::verify
