#include "tp1d/scheme_1d.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "grid/grid_1d.hpp"
#include "layers/pre_ln_block.hpp"
#include "tp1d/attention_1d.hpp"
#include "tp1d/mlp_1d.hpp"

namespace tplab::tp1d {
namespace {

/// Owns the grid so that its communicator outlives the layers that use it.
class Module1D final : public ParallelModule {
 public:
  Module1D(Grid1D grid, Device& device, const BlockShape& shape, Workload workload,
           const TensorMap& p, Mode1D mode)
      : grid_(std::move(grid)) {
    Comm& tp = *grid_.tp;
    if (workload == Workload::linear_pair) {
      inner_ = std::make_unique<SublayerModule>(
          std::make_unique<Mlp1D>(device, tp, p, Activation::none, mode));
      return;
    }
    // LayerNorm sees whole rows: no feature group. Its parameters are replicated; with
    // sequence parallelism each rank normalizes other tokens, so their gradients are summed
    // over the group.
    Comm* replicas = mode.sequence_parallel ? &tp : nullptr;
    inner_ = std::make_unique<PreLnBlock>(
        device,
        std::make_unique<LayerNorm>(device, nullptr, replicas, shape.h, p.at("ln1_gamma"),
                                    p.at("ln1_beta")),
        std::make_unique<Attention1D>(device, tp, shape, p, mode),
        std::make_unique<LayerNorm>(device, nullptr, replicas, shape.h, p.at("ln2_gamma"),
                                    p.at("ln2_beta")),
        std::make_unique<Mlp1D>(device, tp, p, Activation::gelu, mode));
  }

  Tensor forward(const Tensor& x) override { return inner_->forward(x); }
  Tensor backward(const Tensor& dy) override { return inner_->backward(dy); }
  TensorMap gradients() const override { return inner_->gradients(); }
  std::size_t saved_bytes() const override { return inner_->saved_bytes(); }

 private:
  Grid1D grid_;
  std::unique_ptr<ParallelModule> inner_;
};

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
  return std::make_unique<Module1D>(Grid1D::build(world), device, shape, workload, parameters,
                                    mode_);
}

}  // namespace tplab::tp1d
