/// @file
/// Element types and where a tensor lives.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "core/names.hpp"

namespace tplab {

/// Element type of a Tensor. bf16 is storage only; arithmetic accumulates in f32.
enum class DType { f64, f32, bf16 };

/// Where a Tensor's memory lives.
enum class DeviceKind { cpu, cuda };

/// Bytes per element.
constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f64:
      return 8;
    case DType::f32:
      return 4;
    case DType::bf16:
      return 2;
  }
  return 0;
}

/// The names of the element types, as --dtype takes them and the JSON records them.
inline constexpr std::array<Named<DType>, 3> kDTypeNames = {
    {{"f64", DType::f64}, {"f32", DType::f32}, {"bf16", DType::bf16}}};

/// "f64", "f32" or "bf16".
constexpr std::string_view dtype_name(DType t) {
  return name_in(kDTypeNames, t);
}

/// "cpu" or "cuda".
constexpr std::string_view device_name(DeviceKind d) {
  return d == DeviceKind::cpu ? "cpu" : "cuda";
}

/// Parses "f64", "f32" or "bf16"; throws UsageError otherwise.
DType parse_dtype(std::string_view name);

}  // namespace tplab
