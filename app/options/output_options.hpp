/// @file
/// What a run leaves besides its result: --trace, declared once here for every command that
/// draws its ranks' timelines, and the bench's timing loop, --warmup and --repeats.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace tplab::app {

/// Adds --trace FILE: write `what` (every rank's timeline) to this Chrome trace file.
CLI::Option* add_trace_option(CLI::App& command, std::optional<std::string>& trace,
                              const std::string& what);

/// Adds --out DIR: the folder `what` is written to (made if missing; its parent must exist, and
/// the folder be the user's own).
CLI::Option* add_out_option(CLI::App& command, std::string& folder, const std::string& what);

/// The same, unset when not given.
CLI::Option* add_out_option(CLI::App& command, std::optional<std::string>& folder,
                            const std::string& what);

/// Adds --warmup N: untimed `what` first (the default shown is warmup's value).
CLI::Option* add_warmup_option(CLI::App& command, int& warmup, const std::string& what);

/// Adds --repeats N: timed `what`.
CLI::Option* add_repeats_option(CLI::App& command, int& repeats, const std::string& what);

}  // namespace tplab::app
