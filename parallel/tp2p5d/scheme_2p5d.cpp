#include "tp2p5d/scheme_2p5d.hpp"

#include <fmt/format.h>

#include "grid/grid_2p5d.hpp"
#include "tp2d/scheme_2d.hpp"

namespace tplab::tp2p5d {
namespace {

/// Whether d layers of q x q meshes can run `shape`: each layer's row of the mesh holds whole
/// sequences (d*q divides the batch) and each column whole heads (q divides the heads).
bool fits(int d, int q, const BlockShape& shape) {
  return shape.b % (static_cast<std::int64_t>(d) * q) == 0 && shape.heads % q == 0;
}

/// The 2D block of this rank's depth layer, then the depth all-reduce of every gradient.
class Module2p5D final : public ParallelModule {
 public:
  Module2p5D(Grid2p5D grid, Device& device, const BlockShape& shape, Workload workload,
             const TensorMap& parameters)
      : grid_(std::move(grid)),
        inner_(tp2d::make_mesh_module(device, grid_.layer, shape,
                                      shape.b / (grid_.d * grid_.layer.q), workload, parameters)) {}

  Tensor forward(const Tensor& x) override { return inner_->forward(x); }

  Tensor backward(const Tensor& dy) override {
    Tensor dx = inner_->backward(dy);
    // Each layer's gradients cover its own tokens only; the weights they update are the same
    // on every layer, so the layers' gradients are summed (in name order on every rank).
    std::vector<CommRequest> sums;
    for (auto& [name, grad] : inner_->gradients()) {
      if (grid_.layer.overlap) {
        sums.push_back(grid_.depth->start_all_reduce(grad));
      } else {
        grid_.depth->all_reduce(grad);
      }
    }
    for (CommRequest& sum : sums) sum.wait();
    return dx;
  }

  TensorMap gradients() const override { return inner_->gradients(); }
  std::size_t saved_bytes() const override { return inner_->saved_bytes(); }

 private:
  Grid2p5D grid_;
  std::unique_ptr<ParallelModule> inner_;
};

}  // namespace

std::vector<int> Scheme2p5D::default_world_sizes() const {
  if (depth_ == 0) return {4, 8};
  return {depth_ * 4};
}

int Scheme2p5D::depth_for(int world_size, const BlockShape& shape) const {
  if (depth_ > 0) {
    const int q = world_size % depth_ == 0 ? tplab::square_root(world_size / depth_) : 0;
    return q > 0 && fits(depth_, q, shape) ? depth_ : 0;
  }
  int q = 1;
  while ((q + 1) * (q + 1) <= world_size) ++q;
  for (; q >= 1; --q) {
    if (world_size % (q * q) == 0 && fits(world_size / (q * q), q, shape)) {
      return world_size / (q * q);
    }
  }
  return 0;
}

std::string Scheme2p5D::why_not(int world_size, const BlockShape& shape) const {
  if (depth_for(world_size, shape) > 0) return {};
  const std::string depth =
      depth_ > 0 ? fmt::format("d = {} layers", depth_) : std::string("d layers");
  return fmt::format(
      "2.5D runs on {} of q x q meshes, where q divides the heads ({}) and d*q the batch ({}), "
      "so it needs",
      depth, shape.heads, shape.b);
}

std::string Scheme2p5D::describe_grid(int world_size, const BlockShape& shape) const {
  const int d = depth_for(world_size, shape);
  return d > 0 ? fmt::format("q={} d={}", tplab::square_root(world_size / d), d) : "none";
}

std::vector<TensorPlacement> Scheme2p5D::placements(int world_size, const BlockShape& shape,
                                                    Workload workload) const {
  return tp2d::mesh_placements(world_size, depth_for(world_size, shape), shape, workload);
}

std::unique_ptr<ParallelModule> Scheme2p5D::make_module(Comm& world, Device& device,
                                                        const BlockShape& shape, Workload workload,
                                                        TensorMap parameters) const {
  validate(world.size(), shape);
  Grid2p5D grid = Grid2p5D::build(world, depth_for(world.size(), shape));
  grid.layer.overlap = overlap_;
  return std::make_unique<Module2p5D>(std::move(grid), device, shape, workload, parameters);
}

}  // namespace tplab::tp2p5d
