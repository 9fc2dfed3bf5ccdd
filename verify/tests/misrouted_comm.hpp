/// @file
/// MisroutedComm: a Comm that runs one chosen reduce-scatter on the wrong group, to prove that
/// verify notices a layer that names the wrong axis.
#pragma once

#include <map>
#include <string>

#include "comm/forwarding_comm.hpp"

namespace tplab::verify {

/// What to misroute, and the groups seen so far; shared by a world and every group split from it.
struct Misrouting {
  /// 0-based index, counted over all groups, of the reduce-scatter to misroute (-1: none).
  int misrouted = -1;
  /// For each group name, the group of the same size its misrouted reduce-scatter goes to.
  std::map<std::string, std::string> wrong_group;
  /// Every group split so far, by name (the real communicators).
  std::map<std::string, Comm*> groups;
  /// Reduce-scatters issued so far.
  int reduce_scatters = 0;
};

/// Forwards every collective to `inner`, except reduce-scatter number `plan->misrouted`, which
/// runs on plan->wrong_group[group()] instead. Every rank misroutes the same call, so the
/// wrong group's ranks all take part and nothing hangs: only the numbers are wrong. A started
/// collective runs blocking here, so that a started reduce-scatter is misrouted alike.
class MisroutedComm final : public ForwardingComm {
 public:
  MisroutedComm(Comm& inner, std::shared_ptr<Misrouting> plan);
  /// Wraps an owned communicator (the groups this one splits off).
  MisroutedComm(std::unique_ptr<Comm> owned, std::shared_ptr<Misrouting> plan);

  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;
  std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) override;
  std::unique_ptr<PendingTransport> start(const CollectiveCall& call) override;

 private:
  std::shared_ptr<Misrouting> plan_;
};

}  // namespace tplab::verify
