/// @file
/// HostArray: a global tensor on the host in f64, the currency of verify and dump.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "scheme/placement.hpp"

namespace tplab::verify {

/// A row-major f64 array with extents (a vector has one extent).
struct HostArray {
  /// The array's extents: [rows, cols] or [n].
  Extents extents;
  /// Its elements, row-major.
  std::vector<double> values;

  /// The block `range` of this array seen as a matrix (a vector as [1, n]), row-major.
  std::vector<double> block(const BlockRange& range) const;
};

/// Global tensors by name: "x", "wq", "y", "d_wq", ...
using HostArrays = std::map<std::string, HostArray, std::less<>>;

}  // namespace tplab::verify
