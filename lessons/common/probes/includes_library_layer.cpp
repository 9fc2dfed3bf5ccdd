// A probe of the exercise fence (lessons/CMakeLists.txt): an exercise that reaches for the
// finished 1D MLP. It must fail to compile: the header is not on an exercise's include path.
#include "comm/comm.hpp"
#include "device/device.hpp"
#include "tp1d/mlp_1d.hpp"

namespace tplab::lessons::probe {

Tensor mlp_forward(tp1d::Mlp1D& mlp, const Tensor& x) {
  return mlp.forward(x);
}

}  // namespace tplab::lessons::probe
