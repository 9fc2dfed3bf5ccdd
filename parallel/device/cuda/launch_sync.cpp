#include "device/cuda/launch_sync.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

#include "core/error.hpp"

namespace tplab::cuda {

bool sync_after_launch_requested() {
  const char* raw = std::getenv("TPLAB_CUDA_SYNC");
  const std::string_view value = raw == nullptr ? "" : raw;
  if (value.empty() || value == "0") return false;
  if (value == "1") return true;
  throw UsageError(fmt::format(
      "TPLAB_CUDA_SYNC='{}': use 1 to wait for every kernel as it is issued (and name the one "
      "that fails), or 0 (or leave it unset) to run asynchronously",
      value));
}

}  // namespace tplab::cuda
