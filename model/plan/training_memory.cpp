/// @file
/// A training device's memory by kind.
#include "plan/training_memory.hpp"

namespace tplab::model::plan {

DeviceMemory device_memory(std::int64_t parameters, std::int64_t activation_elements,
                           int bytes_per_element) {
  const double n = static_cast<double>(parameters);
  return {.weights = n * bytes_per_element,
          .gradients = n * bytes_per_element,
          .optimizer = n * kAdamStateBytesPerParameter,
          .activations = static_cast<double>(activation_elements) * bytes_per_element};
}

}  // namespace tplab::model::plan
