#include "registry/make_scheme.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "mesh/data_parallel_scheme.hpp"
#include "registry/scheme_registry.hpp"

namespace tplab {

std::unique_ptr<Scheme> make_scheme(std::string_view name, const SchemeOptions& options) {
  if (options.dp < 1) {
    throw UsageError(fmt::format(
        "--dp {}: D is the number of data-parallel replicas of the scheme, at least 1 (1: tensor "
        "parallelism alone)",
        options.dp));
  }
  const SchemeEntry& entry = find_scheme(name);
  if (options.dp == 1) return entry.make(options);
  return std::make_unique<DataParallelScheme>(entry.make, options);
}

}  // namespace tplab

namespace tplab::gpt {

std::unique_ptr<GptLayout> make_gpt_layout(std::string_view name, const SchemeOptions& options) {
  return find_scheme(name).make_gpt_layout(options);
}

}  // namespace tplab::gpt
