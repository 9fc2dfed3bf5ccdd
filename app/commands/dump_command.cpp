#include <fmt/format.h>

#include <filesystem>

#include "commands.hpp"
#include "core/error.hpp"
#include "harness.hpp"
#include "launch_preflight.hpp"
#include "npy.hpp"
#include "option_checks.hpp"
#include "problem.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

struct DumpOptions {
  std::string shape = "2,16,64,4";
  std::uint64_t seed = 1;
  std::string out;
};

int run_dump(const DumpOptions& o) {
  const BlockShape shape = parse_block_shape(o.shape);
  require_output_folder(o.out, "--out");
  require_available_memory(verify::verify_bytes_per_rank(shape),
                           fmt::format("dump at {} (the whole problem and the reference's answer "
                                       "in f64)",
                                       to_string(shape)),
                           "a smaller --shape");
  const verify::HostArrays inputs =
      verify::make_inputs(shape, o.seed, Workload::block, verify::Values::real);
  const verify::HostArrays outputs = verify::reference_outputs(shape, inputs, Workload::block);
  make_output_folder(o.out, "--out");
  for (const auto* arrays : {&inputs, &outputs}) {
    for (const auto& [name, array] : *arrays) {
      write_npy(std::filesystem::path(o.out) / (name + ".npy"), array, "--out");
    }
  }
  fmt::print("wrote {} arrays of the reference block ({}, seed {}) to {}\n",
             inputs.size() + outputs.size(), to_string(shape), o.seed, o.out);
  return 0;
}

}  // namespace

void add_dump_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dump", "Write the reference block's inputs, parameters, outputs and gradients as .npy");
  cmd->add_option("--shape", options->shape, "b,s,h,heads")->capture_default_str();
  cmd->add_option("--seed", options->seed, "seed of the inputs")
      ->check(seed_check())
      ->capture_default_str();
  cmd->add_option("--out", options->out,
                  "folder to write (made if missing; its parent must exist, and the folder be "
                  "your own)")
      ->required();
  cmd->callback([options, &exit_code] { exit_code = run_dump(*options); });
}

}  // namespace tplab::app
