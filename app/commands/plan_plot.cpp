#include "plan_plot.hpp"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/error.hpp"
#include "private_folder.hpp"

extern char** environ;

namespace tplab::app {
namespace {

/// The exit status of `argv` run to its end, or -1 when it could not be started.
int run_to_end(const std::vector<std::string>& argv) {
  std::vector<char*> raw;
  for (const std::string& word : argv) raw.push_back(const_cast<char*>(word.c_str()));
  raw.push_back(nullptr);
  pid_t child = 0;
  if (posix_spawnp(&child, raw.front(), nullptr, nullptr, raw.data(), environ) != 0) return -1;
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

void draw_plan_plot(const nlohmann::json& plan, const std::string& png) {
  const PrivateFolder folder("tplab-plan", "/tmp");
  const std::filesystem::path json = folder.path() / "plan.json";
  std::ofstream(json) << plan.dump() << "\n";
  const std::string script = std::string(TPLAB_SOURCE_DIR) + "/bench/report/plan_plot.py";
  const int status = run_to_end({"python3", script, json.string(), "-o", png});
  if (status == 0) return;
  if (status == -1) {
    throw UsageError(
        "--plot: python3 could not be run to draw the plot; it needs python3 with matplotlib "
        "(./tplab installs them), or write the plan with --json and draw it with "
        "bench/report/plan_plot.py");
  }
  throw UsageError(
      fmt::format("--plot {}: the plot was not drawn (plan_plot.py said why above)", png));
}

}  // namespace tplab::app
