/// @file
/// Options that change only some runs: given where no run of the command uses them, they are
/// refused with the reason, before anything runs, in every command alike. A command says what
/// it is about to run (its planned runs); each rule says which runs an option changes.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "scheme/scheme.hpp"

namespace tplab::app {

/// One run of a command, as far as the options every command shares can tell.
struct PlannedRun {
  std::string scheme;     ///< the scheme's name
  SchemeOptions options;  ///< how the scheme is built and trained
  bool block = true;      ///< the block or the GPT; false: the exact check's linear pair
};

/// An option that changes some runs only.
template <class Run>
struct EffectRule {
  std::string_view option;          ///< its long name, "--regather"
  bool (*changes)(const Run& run);  ///< whether it changes `run`
  std::string_view reason;          ///< why it changes none of a command's runs, and the cure
};

/// Throws UsageError for the first option of `rules` given to `command` that changes none of
/// `runs`: "--regather has no effect here: <reason>".
template <class Run>
void refuse_without_effect(const CLI::App& command, std::span<const EffectRule<Run>> rules,
                           const std::vector<Run>& runs) {
  for (const EffectRule<Run>& rule : rules) {
    const CLI::Option* given = command.get_option_no_throw(std::string(rule.option));
    if (given == nullptr || given->count() == 0) continue;
    if (std::none_of(runs.begin(), runs.end(), rule.changes)) {
      throw UsageError(fmt::format("{} has no effect here: {}", rule.option, rule.reason));
    }
  }
}

/// One block run of each of `schemes`, all with `options`: the runs of a command that runs or
/// models every scheme it is given alike.
std::vector<PlannedRun> runs_of(const std::vector<std::string>& schemes,
                                const SchemeOptions& options);

/// The same with the rules of the options every command shares (--depth, --regather,
/// --dp-buckets, --dropout, --dropout-seed, --dropout-keying, --recompute).
void refuse_without_effect(const CLI::App& command, const std::vector<PlannedRun>& runs);

}  // namespace tplab::app
