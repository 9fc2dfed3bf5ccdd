#include "tp2d/scheme_2d.hpp"

#include <fmt/format.h>

#include "layers/pre_ln_block.hpp"
#include "layers/scheme_dropout.hpp"
#include "scheme/grid_module.hpp"
#include "tp2d/attention_2d.hpp"
#include "tp2d/mlp_2d.hpp"

namespace tplab::tp2d {

std::string Scheme2D::why_not(int world_size, const BlockShape& shape) const {
  const int q = square_root(world_size);
  if (q > 0 && shape.b % q == 0 && shape.heads % q == 0) return {};
  return fmt::format(
      "2D runs on a q x q mesh whose q divides the batch ({}) and the heads ({}), so it needs",
      shape.b, shape.heads);
}

std::vector<TensorPlacement> mesh_placements(int world_size, int depth, const BlockShape& shape,
                                             Workload workload) {
  const int q = square_root(world_size / depth);
  // rank = j + q*i + q^2*k
  const auto i_of = [q](int r) { return (r % (q * q)) / q; };
  const auto j_of = [q](int r) { return r % q; };
  const auto k_of = [q](int r) { return r / (q * q); };
  const std::string depth_note = depth > 1 ? ", replicated over k" : "";
  const auto activation = [&](std::string_view name) {
    return blocked(std::string(name), global_extents(name, shape),
                   depth > 1 ? "rows by k*q+i, cols by j" : "rows by i, cols by j", world_size,
                   depth * q, q, [&](int r) {
                     return std::pair<std::int64_t, std::int64_t>{k_of(r) * q + i_of(r), j_of(r)};
                   });
  };
  const auto weight = [&](std::string_view name) {
    return blocked(std::string(name), global_extents(name, shape),
                   "rows by i, cols by j" + depth_note, world_size, q, q, [&](int r) {
                     return std::pair<std::int64_t, std::int64_t>{i_of(r), j_of(r)};
                   });
  };
  const auto vector = [&](std::string_view name) {
    return blocked(std::string(name), global_extents(name, shape),
                   "by j, replicated over i" + depth_note, world_size, 1, q, [&](int r) {
                     return std::pair<std::int64_t, std::int64_t>{0, j_of(r)};
                   });
  };
  std::vector<TensorPlacement> p;
  for (auto name : {"x", "dy", "y", "dx"}) p.push_back(activation(name));
  if (workload == Workload::block) {
    for (auto name : {"wq", "wk", "wv", "wo"}) p.push_back(weight(name));
    for (auto name : {"ln1_gamma", "ln1_beta", "ln2_gamma", "ln2_beta", "bq", "bk", "bv", "bo"}) {
      p.push_back(vector(name));
    }
  }
  for (auto name : {"w1", "w2"}) p.push_back(weight(name));
  for (auto name : {"b1", "b2"}) p.push_back(vector(name));
  return with_gradients(std::move(p));
}

std::vector<TensorPlacement> Scheme2D::placements(int world_size, const BlockShape& shape,
                                                  Workload workload) const {
  return mesh_placements(world_size, 1, shape, workload);
}

std::unique_ptr<ParallelModule> make_mesh_module(Device& device, Grid2D& grid,
                                                 const BlockShape& shape, std::int64_t batch,
                                                 Workload workload, const TensorMap& p,
                                                 ExecutionPolicy policy,
                                                 std::shared_ptr<BlockDropout> dropout,
                                                 Recompute recompute) {
  if (workload == Workload::linear_pair) {
    return std::make_unique<SublayerModule>(
        std::make_unique<Mlp2D>(device, grid, p, Activation::none, policy));
  }
  // A token's features are spread over its row: the statistics are all-reduced there. gamma
  // and beta blocks repeat down a column: their gradients are summed there.
  const auto layernorm = [&](const char* gamma, const char* beta) {
    return std::make_unique<LayerNorm>(device, grid.row.get(), grid.column.get(), shape.h,
                                       p.at(gamma), p.at(beta));
  };
  // q, k, v have y's layout: its token rows (whole sequences) and its feature columns (whole heads)
  AttentionDropout core_dropout{dropout};
  if (dropout != nullptr) {
    core_dropout.batch0 = dropout->place().output.row0 / shape.s;
    core_dropout.head0 = dropout->place().output.col0 / shape.head_dim();
  }
  return std::make_unique<PreLnBlock>(
      device, layernorm("ln1_gamma", "ln1_beta"),
      std::make_unique<Attention2D>(device, grid, batch, shape.heads / grid.q, shape.head_dim(), p,
                                    policy, std::move(core_dropout), recompute),
      layernorm("ln2_gamma", "ln2_beta"),
      std::make_unique<Mlp2D>(device, grid, p, Activation::gelu, policy), dropout, recompute);
}

std::unique_ptr<ParallelModule> Scheme2D::make_module(Comm& world, Device& device,
                                                      const BlockShape& shape, Workload workload,
                                                      TensorMap parameters) const {
  validate(world.size(), shape);
  return std::make_unique<GridModule<Grid2D>>(Grid2D::build(world), [&](Grid2D& grid) {
    return make_mesh_module(device, grid, shape, shape.b / grid.q, workload, parameters, policy_,
                            make_block_dropout(*this, training_, world.size(), world.rank(), shape),
                            training_.recompute);
  });
}

}  // namespace tplab::tp2d
