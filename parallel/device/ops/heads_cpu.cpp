/// @file
/// HeadsOps on the CPU: one block copy per (batch, head) between [b*s, h] and [b*n, s, h/n].
#include "device/eigen_views.hpp"
#include "device/ops/cpu_ops.hpp"
#include "device/shape_forms.hpp"

namespace tplab::cpu {
namespace {

class CpuHeads final : public HeadsOps {
 public:
  void split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) override {
    const std::int64_t s = x.rows() / batch;
    const std::int64_t d = x.cols() / heads;
    require(out.dtype() == x.dtype(), "split_heads", "mixed dtypes");
    require(x.rank() == 2 && s * batch == x.rows() && d * heads == x.cols() &&
                out.extents() == Extents{batch * heads, s, d},
            "split_heads", split_heads_forms(x.extents(), batch, heads, out.extents()));
    dispatch(x.dtype(), [&]<typename T>() {
      auto in = matrix<T>(x);
      for (std::int64_t bi = 0; bi < batch; ++bi) {
        for (std::int64_t hi = 0; hi < heads; ++hi) {
          Tensor slab = out.slice_rows(bi * heads + hi, 1).reshaped({s, d});
          matrix<T>(slab) = in.block(bi * s, hi * d, s, d);
        }
      }
    });
  }

  void merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) override {
    require(out.dtype() == x.dtype(), "merge_heads", "mixed dtypes");
    require(x.rank() == 3 && x.dim(0) == batch * heads &&
                out.extents() == Extents{batch * x.dim(1), heads * x.dim(2)},
            "merge_heads", merge_heads_forms(x.extents(), batch, heads, out.extents()));
    dispatch(x.dtype(), [&]<typename T>() {
      const std::int64_t s = x.dim(1);
      const std::int64_t d = x.dim(2);
      auto dst = matrix<T>(out);
      for (std::int64_t bi = 0; bi < batch; ++bi) {
        for (std::int64_t hi = 0; hi < heads; ++hi) {
          const Tensor slab = x.slice_rows(bi * heads + hi, 1).reshaped({s, d});
          dst.block(bi * s, hi * d, s, d) = matrix<T>(slab);
        }
      }
    });
  }
};

}  // namespace

std::unique_ptr<HeadsOps> make_heads_ops() {
  return std::make_unique<CpuHeads>();
}

}  // namespace tplab::cpu
