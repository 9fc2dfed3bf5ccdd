/// @file
/// RankVerdict: what each rank concluded on its own, and the ranks' agreement on the run.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "run_property.hpp"

namespace tplab::verify {

/// One rank's conclusions before the ranks agree: every rank merges the same findings, so
/// they conclude alike, unless a value the checker gathered arrived broken on some of them.
struct RankVerdict {
  /// Whether each property (run_property.hpp, in kPropertyNames' order) holds on this rank.
  std::array<bool, kProperties> holds{};
  bool checks_pass = false;  ///< every tensor passed, as this rank merged the findings
  /// Values of the checker's own data that arrived broken here (checker_fault and the like).
  std::vector<std::string> faults;
  /// The first tensor (index in the run's checks) whose findings arrived broken here; -1: none.
  int first_faulty_tensor = -1;
};

/// The run's verdict, the same on every rank.
struct AgreedVerdict {
  PropertyVerdicts properties;  ///< the ranks where each property does not hold
  /// This rank's faults, then every other rank's, named by rank and tensor; and any verdict that
  /// arrived as neither a pass nor a fail.
  std::vector<std::string> faults;
  /// Every property holds on every rank, every check passes and nothing broke.
  bool pass = false;
};

/// Gathers every rank's verdict (collective over `world`). `tensors` names the checks, in
/// the order first_faulty_tensor counts them. A verdict field that arrives as anything but one
/// of the values it can take (a NaN, say) is a fault, and the run fails: never a pass.
AgreedVerdict agree_on_verdict(Comm& world, const RankVerdict& mine,
                               const std::vector<std::string>& tensors);

}  // namespace tplab::verify
