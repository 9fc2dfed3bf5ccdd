#include "rank_output.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include "core/error.hpp"
#include "job_result.hpp"

namespace tplab::app {

void require_rank0_output(const std::optional<std::string>& path, std::string_view option) {
  if (!path) return;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int writable = 1;
  std::string why;
  if (rank == 0) {
    try {
      require_result_target(*path, option);
    } catch (const UsageError& e) {
      writable = 0;
      why = e.what();
    }
  }
  MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (writable != 0) return;
  if (rank == 0) throw UsageError(why);
  throw UsageError(
      fmt::format("{} {}: rank 0, which writes it, cannot (rank 0 says why)", option, *path));
}

}  // namespace tplab::app
