/// @file
/// Checks on command-line values that CLI11's own conversions let through without a word: each
/// turns the text into the number it must be, or says why it is not one.
#pragma once

#include <CLI/CLI.hpp>

namespace tplab::app {

/// A seed: a whole number from 0 to 2^64 - 1, written in decimal. CLI11 turns "-1" and every
/// number past 2^64 into 2^64 - 1, so different seeds would silently run the same problem.
CLI::Validator seed_check();

/// A --dropout: a number in [0, 1), written whole ("0.1", "1e-2"; not "abc", "nan", "1e400" or
/// "0.5x").
CLI::Validator dropout_probability_check();

/// A --timeout: whole seconds, at least 1 (0 or less would end every job at once).
CLI::Validator timeout_check();

/// A --dp: whole replicas D, at least 1 (0 or less would leave no replica to run the scheme).
CLI::Validator replicas_check();

/// A count of ranks, layers, sequences, tokens or steps: a whole number, at least 1, that fits
/// the option's integer.
CLI::Validator positive_count_check();

/// A world size: whole ranks, at least 1.
CLI::Validator world_size_check();

/// A count that may be 0, such as untimed warm-up steps.
CLI::Validator count_check();

/// A positive number, such as GiB of memory.
CLI::Validator positive_number_check();

/// A share of the peak: above 0, at most 1.
CLI::Validator share_check();

}  // namespace tplab::app
