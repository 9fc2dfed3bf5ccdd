/// @file
/// The subcommands of `tplab bench`, each in its own file.
#pragma once

#include <CLI/CLI.hpp>

namespace tplab::app {

/// Adds `bench comm`: the collective micro-benchmark.
void add_bench_comm_command(CLI::App& bench, int& exit_code);
/// Adds `bench scaling` and `bench step`: the block's step across schemes and world sizes.
void add_bench_scaling_commands(CLI::App& bench, int& exit_code);

/// Adds `bench peak`: one core's peak FLOP/s in f64 and f32, per instruction path.
void add_bench_peak_command(CLI::App& bench, int& exit_code);

/// Adds `bench gpu`: the block on one GPU against cuBLAS's matmul rate and the copy bandwidth.
void add_bench_gpu_command(CLI::App& bench, int& exit_code);

}  // namespace tplab::app
