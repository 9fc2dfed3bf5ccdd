/// @file
/// Writing NumPy .npy files (format 1.0, little-endian f64, C order).
#pragma once

#include <filesystem>

#include "host_array.hpp"

namespace tplab::app {

/// Writes `array` as `path` so that numpy.load(path) gives the same values and shape.
void write_npy(const std::filesystem::path& path, const verify::HostArray& array);

}  // namespace tplab::app
