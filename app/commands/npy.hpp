/// @file
/// Writing NumPy .npy files (format 1.0, little-endian f64, C order).
#pragma once

#include <filesystem>
#include <string_view>

#include "host_array.hpp"

namespace tplab::app {

/// Writes `array` as `path` so that numpy.load(path) gives the same values and shape (by the
/// rules of safe_output.hpp; `option` names the path in messages).
void write_npy(const std::filesystem::path& path, const verify::HostArray& array,
               std::string_view option);

}  // namespace tplab::app
