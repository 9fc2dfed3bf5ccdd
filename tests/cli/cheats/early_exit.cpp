// A cheat: ends its process at once with success, before the check has anything to compare.
#include <cstdlib>

#include "lesson.hpp"

namespace tplab::lessons::summa {

Tensor summa_forward(Device&, Grid2D&, const Tensor&, const Tensor&) {
  std::_Exit(0);
}

}  // namespace tplab::lessons::summa
