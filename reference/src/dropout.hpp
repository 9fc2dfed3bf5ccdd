/// @file
/// The reference's dropout masks, drawn as block.hpp's Dropout says; internal to the reference.
#pragma once

#include <cstdint>

#include "tplab/reference/block.hpp"

namespace tplab::reference::detail {

/// The three places the block drops, numbered as the masks' counters number them.
enum class Site : std::uint32_t { probs = 0, attention = 1, mlp = 2 };

/// True when dropout keeps element `e` of `site`'s global tensor.
bool dropout_keeps(const Dropout& dropout, Site site, std::int64_t e);

/// x *= 1/(1-p) where kept and 0 where dropped; element (r, c) of x is element
/// first + r * x.cols() + c of the site's global tensor. Forward on a value, backward on its
/// gradient.
template <typename T>
void apply_dropout(const Dropout& dropout, Site site, std::int64_t first, Matrix<T>& x);

}  // namespace tplab::reference::detail
