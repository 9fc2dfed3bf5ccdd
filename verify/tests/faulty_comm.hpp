// FaultyComm: a Comm that forwards to a real one but drops, repeats, poisons, alters or holds
// on to one chosen collective, to prove that verify notices a missing collective, one too
// many, a NaN that reaches one rank, another reduction or root than the layer's, and storage
// kept from forward for backward that the model does not keep.
#pragma once

#include <map>

#include "comm/forwarding_comm.hpp"

namespace tplab::verify {

/// Which call to tamper with: the `index`-th (from 0) `collective` on groups named `group`,
/// counted on this communicator and every group split from it; an empty `group` counts all
/// groups together.
struct Fault {
  /// What happens to the chosen call.
  enum class Action {
    drop,       ///< it never runs: its tensor keeps this rank's value
    repeat,     ///< it runs twice (harmless for a broadcast, which is idempotent)
    poison,     ///< it runs, then the first element of its result is a NaN on `rank` alone
    as_max,     ///< it runs as a max where the caller asked for a sum (an all_reduce)
    next_root,  ///< it runs from the next rank of the group, not the root the caller named
    hoard,      ///< it runs, and its result is held on to, as by a layer that keeps it unsaid
    /// every all-reduce of the group that asks for a max runs as a sum (`index` is not used):
    /// a shift by the sum of the parts' maxima, exact until exp underflows
    max_as_sum,
    /// the group says it has 2 ranks, as a 2 written where its size belongs would (`index` is
    /// not used): right at two replicas only
    size_two,
  };
  std::string group;
  int index = 0;
  Collective collective = Collective::all_reduce;
  Action action = Action::drop;
  int rank = 0;  ///< poison: the rank, in the call's group, whose result gets the NaN
};

/// Forwards every collective to the communicator it wraps, except the one `fault` names. It
/// wraps the counted chain, so the counters record what really ran: a dropped call is missing
/// from them and a repeated one counted twice, as on a real link. A started collective runs
/// blocking here, so that it can be dropped or repeated like any other.
class FaultyComm final : public ForwardingComm {
 public:
  FaultyComm(Comm& inner, Fault fault);

  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;
  int size() const override;
  std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) override;
  std::unique_ptr<PendingTransport> start(const CollectiveCall& call) override;

 private:
  struct Shared {
    Fault fault;
    std::map<std::string, int> seen;  // calls of the fault's collective so far, per group ("" all)
    Tensor hoarded;                   // the result a hoard holds on to, as long as this lives
  };
  FaultyComm(std::unique_ptr<Comm> owned, std::shared_ptr<Shared> shared);
  /// Whether this call of `collective` is the faulty one.
  bool is_the_fault(Collective collective);

  std::shared_ptr<Shared> shared_;
};

}  // namespace tplab::verify
