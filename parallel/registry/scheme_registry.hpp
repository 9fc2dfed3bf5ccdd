/// @file
/// The registry of schemes: one entry per scheme, the one place that lists them. make_scheme(),
/// gpt::make_gpt_layout(), the cost model's table (model/scheme_costs.hpp) and the commands'
/// help texts and defaults all read it, so adding a scheme is adding one entry here.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpt/gpt_layout.hpp"
#include "scheme/scheme.hpp"

namespace tplab {

/// One scheme's fixed facts and the factories of its parts. What depends on the options a
/// scheme is built with (its grid's description, the world sizes verify runs it at, 2.5D's
/// depth) is asked of the Scheme that `make` builds.
struct SchemeEntry {
  /// What --scheme takes and Scheme::name() returns: "1d", "1d-sp", "2d", "2.5d", "3d".
  std::string_view name;
  /// One line that says what the scheme splits, for help texts.
  std::string_view help;
  /// The Scheme run with `options`; throws UsageError for options it cannot take.
  std::unique_ptr<Scheme> (*make)(const SchemeOptions& options) = nullptr;
  /// Where the tiny GPT's embedding, final LayerNorm, LM head and loss sit on the grid.
  std::unique_ptr<gpt::GptLayout> (*make_gpt_layout)(const SchemeOptions& options) = nullptr;
  /// The world `./tplab train` uses when --np is not given: the smallest that splits every
  /// part of its default GPT.
  int train_world_size = 1;
};

/// Every scheme, in teaching order.
std::span<const SchemeEntry> scheme_registry();

/// The entry called `name`; throws UsageError naming the known schemes otherwise.
const SchemeEntry& find_scheme(std::string_view name);

/// Names of every scheme in the registry, in teaching order.
std::vector<std::string> scheme_names();

/// Whether a --scheme list names schemes, rather than every one (nothing, or "all").
bool names_schemes(const std::vector<std::string>& names);

/// The schemes a --scheme list asks for: every scheme, in teaching order, for nothing or
/// "all"; otherwise the names given, each checked (UsageError naming the known ones).
std::vector<std::string> chosen_schemes(const std::vector<std::string>& names);

/// The names, in teaching order, for help texts: "1d, 1d-sp, 2d, 2.5d, 3d".
std::string scheme_help_list();

/// One line per scheme, its name and its help, for the foot of a command's --help.
std::string scheme_help_table();

}  // namespace tplab
