#include "problem_options.hpp"

#include <fmt/format.h>

#include "choice.hpp"
#include "value_checks.hpp"

namespace tplab::app {
namespace {

constexpr std::string_view kDTypeHelp =
    "element type: f64, f32 or bf16 (bf16: stored in bf16, each operation computed in f32 and "
    "rounded once)";

/// Declares --dtype, storing one type or a list into `target`.
template <class Target>
CLI::Option* declare_dtype(CLI::App& command, Target& target, const std::string& help_tail) {
  return add_named_option(command, "--dtype", target, kDTypeNames,
                          fmt::format("{}{}", kDTypeHelp, help_tail));
}

/// Declares --seed, storing into `target`.
template <class Target>
CLI::Option* declare_seed(CLI::App& command, Target& target, const std::string& what) {
  return command.add_option("--seed", target, fmt::format("seed of {}", what))->check(seed_check());
}

}  // namespace

CLI::Option* add_shape_option(CLI::App& command, std::optional<BlockShape>& shape,
                              const std::string& defaults) {
  return command
      .add_option_function<std::string>(
          "--shape", [&shape](const std::string& text) { shape = parse_block_shape(text); },
          fmt::format("the global block b,s,h,heads: b sequences of s tokens, hidden size h, "
                      "heads attention heads (default: {})",
                      defaults))
      ->type_name("b,s,h,heads");
}

std::string shape_argument(const BlockShape& shape) {
  return fmt::format("{},{},{},{}", shape.b, shape.s, shape.h, shape.heads);
}

CLI::Option* add_dtype_option(CLI::App& command, DType& dtype, const std::string& help_tail) {
  return declare_dtype(command, dtype, help_tail);
}

CLI::Option* add_dtype_option(CLI::App& command, std::vector<DType>& dtypes,
                              const std::string& help_tail) {
  return declare_dtype(command, dtypes, help_tail);
}

void add_gpt_size_options(CLI::App& command, std::int64_t& vocab, std::int64_t& layers) {
  command.add_option("--vocab", vocab, "V, the GPT's vocabulary: token ids 0..V-1")
      ->check(positive_count_check())
      ->capture_default_str();
  command.add_option("--layers", layers, "L, the GPT's transformer blocks")
      ->check(positive_count_check())
      ->capture_default_str();
}

CLI::Option* add_seed_option(CLI::App& command, std::uint64_t& seed, const std::string& what) {
  return declare_seed(command, seed, what)->capture_default_str();
}

CLI::Option* add_seed_option(CLI::App& command, std::optional<std::uint64_t>& seed,
                             const std::string& what) {
  return declare_seed(command, seed, what);
}

}  // namespace tplab::app
