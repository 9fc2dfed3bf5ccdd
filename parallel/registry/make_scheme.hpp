/// @file
/// The factories that turn a scheme's name into its parts, each through the scheme's registry
/// entry (registry/scheme_registry.hpp): the Scheme itself, replicated over data-parallel ranks
/// when the options ask for it, and the layout of the tiny GPT around its blocks.
#pragma once

#include <memory>
#include <string_view>

#include "gpt/gpt_layout.hpp"
#include "scheme/scheme.hpp"

namespace tplab {

/// The scheme called `name` ("1d", "3d"), as its entry in the registry
/// (registry/scheme_registry.hpp) builds it; throws UsageError listing the known ones otherwise.
std::unique_ptr<Scheme> make_scheme(std::string_view name, const SchemeOptions& options = {});

}  // namespace tplab

namespace tplab::gpt {

/// The layout of scheme `name`, as its registry entry builds it; throws UsageError for a name
/// the registry does not know.
std::unique_ptr<GptLayout> make_gpt_layout(std::string_view name, const SchemeOptions& options);

}  // namespace tplab::gpt
