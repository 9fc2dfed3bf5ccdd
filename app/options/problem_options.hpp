/// @file
/// What a run computes on: --shape (the global block b,s,h,heads), --dtype and --seed, each
/// declared once here for every command that takes it, and parsed when the command line is read.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "scheme/block_shape.hpp"

namespace tplab::app {

/// Adds --shape b,s,h,heads, parsed into `shape` (unset when not given: the command derives its
/// default, which `defaults` describes). A malformed shape is refused naming what is wrong.
CLI::Option* add_shape_option(CLI::App& command, std::optional<BlockShape>& shape,
                              const std::string& defaults);

/// `shape` as --shape takes it: "b,s,h,heads".
std::string shape_argument(const BlockShape& shape);

/// Adds --dtype: one element type.
CLI::Option* add_dtype_option(CLI::App& command, DType& dtype, const std::string& help_tail = "");

/// Adds --dtype: a comma-separated list of element types, each run in turn.
CLI::Option* add_dtype_option(CLI::App& command, std::vector<DType>& dtypes,
                              const std::string& help_tail = "");

/// Adds --vocab V and --layers L: the GPT's vocabulary and its number of blocks (the defaults
/// shown are the targets' values).
void add_gpt_size_options(CLI::App& command, std::int64_t& vocab, std::int64_t& layers);

/// Adds --seed: `what` is drawn from it (the default shown is seed's value).
CLI::Option* add_seed_option(CLI::App& command, std::uint64_t& seed, const std::string& what);

/// Adds --seed, unset when not given (`what` says what happens then).
CLI::Option* add_seed_option(CLI::App& command, std::optional<std::uint64_t>& seed,
                             const std::string& what);

}  // namespace tplab::app
