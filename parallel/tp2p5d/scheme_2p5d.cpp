#include "tp2p5d/scheme_2p5d.hpp"

#include <fmt/format.h>

#include "grid/grid_2p5d.hpp"
#include "layers/scheme_dropout.hpp"
#include "scheme/grid_module.hpp"
#include "tp2d/scheme_2d.hpp"

namespace tplab::tp2p5d {
namespace {

/// Whether d layers of q x q meshes can run `shape`: each layer's row of the mesh holds whole
/// sequences (d*q divides the batch) and each column whole heads (q divides the heads).
bool fits(int d, int q, const BlockShape& shape) {
  return shape.b % (static_cast<std::int64_t>(d) * q) == 0 && shape.heads % q == 0;
}

/// The 2D block of this rank's depth layer, then the depth all-reduce of every gradient.
class Module2p5D final : public GridModule<Grid2p5D> {
 public:
  Module2p5D(Grid2p5D grid, Device& device, const BlockShape& shape, Workload workload,
             const TensorMap& parameters, ExecutionPolicy policy,
             std::shared_ptr<BlockDropout> dropout, Recompute recompute)
      : GridModule(std::move(grid),
                   [&](Grid2p5D& g) {
                     return tp2d::make_mesh_module(device, g.layer, shape,
                                                   shape.b / (g.d * g.layer.q), workload,
                                                   parameters, policy, dropout, recompute);
                   }),
        policy_(policy) {}

  Tensor backward(const Tensor& dy) override {
    Tensor dx = GridModule::backward(dy);
    // Each layer's gradients cover its own tokens only; the weights they update are the same
    // on every layer, so the layers' gradients are summed (in name order on every rank).
    std::vector<CommRequest> sums;
    for (auto& [name, grad] : gradients()) {
      sums.push_back(policy_.all_reduce(*grid().depth, grad));
    }
    for (CommRequest& sum : sums) sum.wait();
    return dx;
  }

 private:
  ExecutionPolicy policy_;
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
  return std::make_unique<Module2p5D>(
      Grid2p5D::build(world, depth_for(world.size(), shape)), device, shape, workload, parameters,
      policy_, make_block_dropout(*this, training_, world.size(), world.rank(), shape),
      training_.recompute);
}

}  // namespace tplab::tp2p5d
