// FaultyComm: a Comm that forwards to a real one but drops or repeats one chosen collective, to
// prove that verify notices a missing collective and one too many.
#pragma once

#include <map>

#include "comm/comm.hpp"

namespace tplab::verify {

/// Which call to tamper with: the `index`-th (from 0) `collective` on groups named `group`,
/// counted on this communicator and every group split from it; an empty `group` counts all
/// groups together.
struct Fault {
  /// What happens to the chosen call.
  enum class Action {
    drop,    ///< it never runs: its tensor keeps this rank's value
    repeat,  ///< it runs twice (harmless for a broadcast, which is idempotent)
  };
  std::string group;
  int index = 0;
  Collective collective = Collective::all_reduce;
  Action action = Action::drop;
};

/// Forwards every collective to the communicator it wraps, except the one `fault` names. The
/// wrapped communicator records what really ran (Recording::by_inner), so a dropped call is
/// missing from the counters and a repeated one counted twice, as on a real link.
class FaultyComm final : public Comm {
 public:
  FaultyComm(Comm& inner, Fault fault);

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  std::string transport() const override { return inner_->transport(); }
  void barrier() override { inner_->barrier(); }
  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;

 protected:
  void do_all_reduce(Tensor& x, ReduceOp op) override;
  void do_all_gather(const Tensor& shard, Tensor& full) override;
  void do_reduce_scatter(const Tensor& full, Tensor& shard) override;
  void do_broadcast(Tensor& x, int root) override;
  void do_reduce(const Tensor& in, Tensor& out, int root) override;

 private:
  struct Shared {
    Fault fault;
    std::map<std::string, int> seen;  // calls of the fault's collective so far, per group ("" all)
  };
  FaultyComm(std::unique_ptr<Comm> owned, std::shared_ptr<Shared> shared);
  /// How many times this call of `collective` runs: 1, or 0 / 2 for the faulty one.
  int runs(Collective collective);

  std::unique_ptr<Comm> owned_;
  Comm* inner_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace tplab::verify
