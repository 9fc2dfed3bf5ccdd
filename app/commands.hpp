/// @file
/// The subcommands of the tplab program.
#pragma once

#include <CLI/CLI.hpp>

namespace tplab::app {

/// Adds "verify" to the program; the callback runs it and stores its exit code.
void add_verify_command(CLI::App& app, int& exit_code);
/// Adds "bench" and its subcommands.
void add_bench_command(CLI::App& app, int& exit_code);
/// Adds "model": projections, calibration and the comparison with a measured run.
void add_model_command(CLI::App& app, int& exit_code);
/// Adds "dump".
void add_dump_command(CLI::App& app, int& exit_code);
/// Adds "lesson" and its subcommands list, next, show, check, hint, reset and grade.
void add_lesson_command(CLI::App& app, int& exit_code);
/// Adds "placements": which block of every tensor each rank holds (pure, no MPI).
void add_placements_command(CLI::App& app, int& exit_code);
/// Adds "train": the tiny GPT on one scheme beside the reference.
void add_train_command(CLI::App& app, int& exit_code);

}  // namespace tplab::app
