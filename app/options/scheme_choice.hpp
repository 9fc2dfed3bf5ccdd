/// @file
/// Which schemes run and how they are built: --scheme, --depth, --regather and --overlap,
/// declared once here for every command that takes them. --depth and --regather go straight
/// into the library's SchemeOptions.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <string>
#include <vector>

#include "core/names.hpp"
#include "scheme/scheme.hpp"

namespace tplab::app {

/// Whether the collectives of a run start early (SchemeOptions::overlap): off, on, or each
/// configuration both ways, where a command runs it twice.
enum class Overlap { off, on, both };

/// The names --overlap takes.
inline constexpr std::array<Named<Overlap>, 3> kOverlapNames = {
    {{"off", Overlap::off}, {"on", Overlap::on}, {"both", Overlap::both}}};

/// The settings `overlap` runs: {false}, {true}, or {false, true} for both.
std::vector<bool> overlap_settings(Overlap overlap);

/// Adds --scheme: the one scheme to run, a name of the registry.
CLI::Option* add_scheme_option(CLI::App& command, std::string& scheme);

/// Adds --scheme: the schemes to run, a comma-separated list of the registry's names or "all"
/// (nothing: every scheme).
CLI::Option* add_scheme_option(CLI::App& command, std::vector<std::string>& schemes);

/// Adds --depth (2.5D's d) and --regather (3D) to `command`, stored in `options`.
void add_scheme_build_options(CLI::App& command, SchemeOptions& options);

/// Adds --depth alone (where regathering changes nothing: placements, the plan).
CLI::Option* add_depth_option(CLI::App& command, SchemeOptions& options);

/// Adds --overlap; `help_tail` says what `both` does in this command, or that it takes none.
CLI::Option* add_overlap_option(CLI::App& command, Overlap& overlap, const std::string& help_tail);

}  // namespace tplab::app
