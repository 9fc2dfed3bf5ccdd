/// @file
/// DeviceMemory: what one device holds while it trains, split the way ZeRO (Rajbhandari et al.
/// 2020, section 3.1) splits it: parameters, gradients, optimizer state and activations.
///
/// Assumed: mixed-precision Adam without sharding (no ZeRO, no distributed optimizer).
///   parameters   bytes_per_element each (the profile's: bf16, 2 bytes, on dgx-h100)
///   gradients    the same
///   Adam state   12 bytes per parameter: an fp32 master copy and the fp32 first and second
///                moments (ZeRO's K = 12), 16 bytes per parameter in all with 2-byte weights
///   activations  what the layers keep for backward (RankCost's count), bytes_per_element each;
///                no recomputation
/// Left out: the framework's workspace, the allocator's fragmentation, communication buffers.
#pragma once

#include <cstdint>

namespace tplab::model::plan {

/// Bytes of Adam's state per parameter: fp32 master weight, first and second moments.
inline constexpr int kAdamStateBytesPerParameter = 12;

/// Bytes one device holds, by kind.
struct DeviceMemory {
  double weights = 0;      ///< the parameters it holds
  double gradients = 0;    ///< their gradients
  double optimizer = 0;    ///< Adam's state for them
  double activations = 0;  ///< kept for backward
  /// All four.
  double total() const { return weights + gradients + optimizer + activations; }
};

/// The memory of a device that holds `parameters` parameters and keeps `activation_elements`
/// for backward, with weights, gradients and activations of `bytes_per_element` bytes.
DeviceMemory device_memory(std::int64_t parameters, std::int64_t activation_elements,
                           int bytes_per_element);

}  // namespace tplab::model::plan
