// FaultyComm: a Comm that forwards to a real one but drops chosen all-reduces, to prove that
// verify notices a missing collective.
#pragma once

#include <map>

#include "comm/comm.hpp"

namespace tplab::verify {

/// Which all-reduce to drop: the `index`-th (from 0) on groups named `group`, counted on this
/// communicator and every group split from it; an empty `group` counts all groups together.
struct Fault {
  std::string group;
  int index = 0;
};

/// Forwards every collective to the communicator it wraps, except the all-reduce `fault` names.
class FaultyComm final : public Comm {
 public:
  FaultyComm(Comm& inner, Fault fault);

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
  struct Shared {
    Fault fault;
    std::map<std::string, int> seen;  // all-reduces so far, per group name ("" for all)
  };
  FaultyComm(std::unique_ptr<Comm> owned, std::shared_ptr<Shared> shared);

  std::unique_ptr<Comm> owned_;
  Comm* inner_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace tplab::verify
