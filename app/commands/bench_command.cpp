// `tplab bench`: the measurements, one subcommand each.
#include "bench_commands.hpp"
#include "commands.hpp"

namespace tplab::app {

void add_bench_command(CLI::App& app, int& exit_code) {
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Measure: collectives (comm), scaling over schemes and world sizes, one step, one core's "
      "peak, one GPU");
  bench->require_subcommand(1);
  add_bench_comm_command(*bench, exit_code);
  add_bench_scaling_commands(*bench, exit_code);
  add_bench_peak_command(*bench, exit_code);
  add_bench_gpu_command(*bench, exit_code);
}

}  // namespace tplab::app
