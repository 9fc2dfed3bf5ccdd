#include "comm/mpi_call.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <limits>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace tplab {

void mpi_check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw InternalError(fmt::format("{} failed: {}", call, std::string_view(text, length)));
}

int mpi_count(const Tensor& t) {
  // The message is formatted only on failure: this runs on every collective, small ones too.
  if (t.numel() > std::numeric_limits<int>::max()) {
    throw InternalError(
        fmt::format("tensor {} is too large for one MPI call", to_string(t.extents())));
  }
  return static_cast<int>(t.numel());
}

}  // namespace tplab
