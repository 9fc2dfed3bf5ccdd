/// @file
/// What the program says when CLI11 refuses a command line.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace tplab::app {

/// CLI11's message for `e`, except for words a command does not take (CLI11's "The following
/// arguments were not expected: 2 --dp"), which are named with the command that refused them
/// and where its options are listed: "model plan takes no option --dp (./tplab model plan
/// --help lists the ones it takes)"; where a subcommand of it takes them, that one is named:
/// "model takes no option --pp; model plan does (./tplab model plan --help lists what it
/// takes)". `program` is the program's App, whose parsed subcommands say which command refused
/// them.
std::string usage_message(const CLI::App* program, const CLI::Error& e);

}  // namespace tplab::app
