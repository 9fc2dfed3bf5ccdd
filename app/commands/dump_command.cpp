#include <fmt/format.h>

#include <filesystem>

#include "commands.hpp"
#include "core/error.hpp"
#include "harness.hpp"
#include "launch_preflight.hpp"
#include "npy.hpp"
#include "output_options.hpp"
#include "problem.hpp"
#include "problem_options.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

struct DumpOptions {
  std::optional<BlockShape> shape;  ///< unset: 2,16,64,4
  std::uint64_t seed = 1;
  std::string out;
};

int run_dump(const DumpOptions& o) {
  const BlockShape shape = o.shape.value_or(BlockShape{2, 16, 64, 4});
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
  add_shape_option(*cmd, options->shape, "2,16,64,4");
  add_seed_option(*cmd, options->seed, "the inputs");
  add_out_option(*cmd, options->out, "the arrays")->required();
  cmd->callback([options, &exit_code] { exit_code = run_dump(*options); });
}

}  // namespace tplab::app
