// StderrRelay tells Open MPI's failure to run a job from its trouble reporting a job that ran:
// a job whose ranks said first-hand what went wrong was run, whatever Open MPI logs after.
#include "stderr_relay.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace tplab::app {
namespace {

/// A child process that writes `lines` to its standard error through `relay`, then ends.
void relay_child_lines(StderrRelay& relay, const std::vector<std::string>& lines) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    relay.attach_in_child();
    for (const std::string& line : lines) {
      const std::string text = line + "\n";
      if (write(STDERR_FILENO, text.data(), text.size()) < 0) _exit(1);
    }
    _exit(0);
  }
  relay.detach_in_parent();
  int status = 0;
  waitpid(child, &status, 0);
  relay.pass_on_rest();
}

constexpr const char* kShowHelpLog =
    "[vm:26867] [[1037,0],0] ORTE_ERROR_LOG: Out of resource in file "
    "../../../orte/util/show_help.c at line 507";

TEST(StderrRelay, OpenMpisOwnFailureIsTheCauseWhenNoRankSpoke) {
  StderrRelay relay;
  relay_child_lines(relay, {kShowHelpLog});
  EXPECT_NE(relay.mpiexec_error().find("ORTE_ERROR_LOG: Out of resource"), std::string::npos)
      << relay.mpiexec_error();
}

TEST(StderrRelay, AJobWhoseRanksSaidWhatWentWrongRan) {
  StderrRelay relay;
  relay_child_lines(relay, {"tplab: [rank 1/4] --check-finite: a NaN or Inf first appears in "
                            "the attention output (forward) [36, 36], at index 0; ending the job",
                            kShowHelpLog});
  EXPECT_EQ(std::string(relay.mpiexec_error()), "");
  EXPECT_NE(relay.last_message().find("--check-finite"), std::string::npos) << relay.last_message();
}

TEST(StderrRelay, ARankThatExitedWithoutFinalizingIsNamedSo) {
  StderrRelay relay;
  relay_child_lines(relay,
                    {"--------------------------------------------------------------------------",
                     "mpiexec has exited due to process rank 0 with PID 0 on",
                     "node vm exiting improperly. There are three reasons this could occur:",
                     "You can avoid this message by specifying -quiet on the mpiexec command line.",
                     "--------------------------------------------------------------------------"});
  EXPECT_NE(relay.last_message().find("exited without finalizing MPI"), std::string::npos)
      << relay.last_message();
}

}  // namespace
}  // namespace tplab::app
