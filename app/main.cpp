// tplab: tensor parallelism, taught and verified. The command-line entry point.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "core/error.hpp"
#include "mpi_launch.hpp"
#include "usage_message.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tplab: 1D, 2D, 2.5D and 3D tensor parallelism, checked against a reference"};
  app.require_subcommand(1);
  app.failure_message(tplab::app::usage_message);
  int exit_code = 0;
  tplab::app::add_verify_command(app, exit_code);
  tplab::app::add_bench_command(app, exit_code);
  tplab::app::add_model_command(app, exit_code);
  tplab::app::add_dump_command(app, exit_code);
  tplab::app::add_lesson_command(app, exit_code);
  tplab::app::add_placements_command(app, exit_code);
  tplab::app::add_train_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : tplab::app::kExitUsage;
  } catch (const tplab::app::Interrupted& e) {
    fmt::print(stderr, "tplab: {}; the job was ended\n", e.what());
    return 128 + e.signal_number();
  } catch (const tplab::NoDeviceError& e) {
    fmt::print(stderr, "tplab: {}\n", e.what());
    return tplab::app::kExitNoDevice;
  } catch (const tplab::UsageError& e) {
    fmt::print(stderr, "tplab: error: {}\n", e.what());
    return tplab::app::kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tplab: internal error: {}\n", e.what());
    return tplab::app::kExitInternal;
  }
  return exit_code;
}
