#include "tp1d/scheme_1d.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "grid/grid_1d.hpp"
#include "layers/pre_ln_block.hpp"
#include "layers/scheme_dropout.hpp"
#include "scheme/grid_module.hpp"
#include "tp1d/attention_1d.hpp"
#include "tp1d/mlp_1d.hpp"

namespace tplab::tp1d {
namespace {

/// The block (or linear pair) of this rank on the group `tp`.
std::unique_ptr<ParallelModule> make_block(Device& device, Comm& tp, const BlockShape& shape,
                                           Workload workload, const TensorMap& p,
                                           ExecutionPolicy policy, Mode1D mode,
                                           std::shared_ptr<BlockDropout> dropout,
                                           Recompute recompute) {
  if (workload == Workload::linear_pair) {
    return std::make_unique<SublayerModule>(
        std::make_unique<Mlp1D>(device, tp, p, Activation::none, policy, mode));
  }
  // LayerNorm sees whole rows: no feature group. Its parameters are replicated; with
  // sequence parallelism each rank normalizes other tokens, so their gradients are summed
  // over the group.
  Comm* replicas = mode.sequence_parallel ? &tp : nullptr;
  return std::make_unique<PreLnBlock>(
      device,
      std::make_unique<LayerNorm>(device, nullptr, replicas, shape.h, p.at("ln1_gamma"),
                                  p.at("ln1_beta")),
      std::make_unique<Attention1D>(
          device, tp, shape, p, policy, mode,
          // every rank holds every sequence, and heads rank*n/t .. (rank+1)*n/t - 1
          AttentionDropout{dropout, 0, tp.rank() * (shape.heads / tp.size())}, recompute),
      std::make_unique<LayerNorm>(device, nullptr, replicas, shape.h, p.at("ln2_gamma"),
                                  p.at("ln2_beta")),
      std::make_unique<Mlp1D>(device, tp, p, Activation::gelu, policy, mode), dropout, recompute);
}

}  // namespace

std::string Scheme1D::why_not(int world_size, const BlockShape& shape) const {
  // Whole heads per rank; h and 4h then split too, since the heads divide h.
  if (shape.heads % world_size != 0) {
    const char* label = mode_.sequence_parallel ? "1d-sp" : "1D";
    return fmt::format("{} gives each rank whole heads, so {} with {} heads needs", label, label,
                       shape.heads);
  }
  if (mode_.sequence_parallel && shape.tokens() % world_size != 0) {
    return fmt::format(
        "1d-sp gives each rank an equal share of the tokens for LayerNorm and the residuals, so "
        "1d-sp with {} tokens (b*s = {}*{}) and {} heads needs",
        shape.tokens(), shape.b, shape.s, shape.heads);
  }
  return {};
}

std::vector<TensorPlacement> Scheme1D::placements(int world_size, const BlockShape& shape,
                                                  Workload workload) const {
  const int t = world_size;
  const auto own = [](int r) { return std::pair<std::int64_t, std::int64_t>{r, 0}; };
  const auto own_column = [](int r) { return std::pair<std::int64_t, std::int64_t>{0, r}; };
  const auto columns = [&](std::string_view name) {
    return blocked(std::string(name), global_extents(name, shape), "Shard(1) over tp", t, 1, t,
                   own_column);
  };
  const auto rows = [&](std::string_view name) {
    return blocked(std::string(name), global_extents(name, shape), "Shard(0) over tp", t, t, 1,
                   own);
  };
  const auto vector_shard = [&](std::string_view name) {
    return blocked(std::string(name), global_extents(name, shape), "Shard(0) over tp", t, 1, t,
                   own_column);
  };
  const auto whole = [&](std::string_view name) {
    return replicated(std::string(name), global_extents(name, shape), t);
  };

  std::vector<TensorPlacement> p;
  for (auto name : {"x", "dy", "y", "dx"}) {
    p.push_back(mode_.sequence_parallel ? rows(name) : whole(name));
  }
  if (workload == Workload::block) {
    for (auto name : {"ln1_gamma", "ln1_beta", "ln2_gamma", "ln2_beta", "bo"}) {
      p.push_back(whole(name));
    }
    for (auto name : {"wq", "wk", "wv"}) p.push_back(columns(name));
    for (auto name : {"bq", "bk", "bv"}) p.push_back(vector_shard(name));
    p.push_back(rows("wo"));
  }
  p.push_back(columns("w1"));
  p.push_back(vector_shard("b1"));
  p.push_back(rows("w2"));
  p.push_back(whole("b2"));
  return with_gradients(std::move(p));
}

std::unique_ptr<ParallelModule> Scheme1D::make_module(Comm& world, Device& device,
                                                      const BlockShape& shape, Workload workload,
                                                      TensorMap parameters) const {
  validate(world.size(), shape);
  return std::make_unique<GridModule<Grid1D>>(Grid1D::build(world), [&](Grid1D& grid) {
    return make_block(device, *grid.tp, shape, workload, parameters, policy_, mode_,
                      make_block_dropout(*this, training_, world.size(), world.rank(), shape),
                      training_.recompute);
  });
}

}  // namespace tplab::tp1d
