#include "grid/grid_1d.hpp"

namespace tplab {

Grid1D Grid1D::build(Comm& world) {
  return Grid1D{world.split(0, world.rank(), "tp")};
}

}  // namespace tplab
