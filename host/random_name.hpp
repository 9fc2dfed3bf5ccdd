/// @file
/// Names and tokens no other user can guess, from the kernel's random source.
#pragma once

#include <cstddef>
#include <string>

namespace tplab::app {

/// `bytes` random bytes from getrandom(2), as 2 * bytes lowercase hexadecimal digits.
std::string random_hex(std::size_t bytes);

}  // namespace tplab::app
