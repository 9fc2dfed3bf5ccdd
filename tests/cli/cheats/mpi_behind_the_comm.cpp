// A cheat: MPI called directly, declared by hand, so that the counted Comm never sees it.
#include "lesson.hpp"

extern "C" {
extern char ompi_mpi_comm_world[], ompi_mpi_double[];
int MPI_Allgather(const void*, int, void*, void*, int, void*, void*);
}

namespace tplab::lessons::summa {

Tensor summa_forward(Device& device, Grid2D&, const Tensor& x, const Tensor& w) {
  double mine = 0, all[9] = {};
  MPI_Allgather(&mine, 1, ompi_mpi_double, all, 1, ompi_mpi_double, ompi_mpi_comm_world);
  return device.zeros({x.rows(), w.cols()}, x.dtype());
}

}  // namespace tplab::lessons::summa
