/// @file
/// Scheme3D: the rules a shape must meet, the placements as data, and the module.
#include "tp3d/scheme_3d.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "grid/grid_3d.hpp"
#include "layers/pre_ln_block.hpp"
#include "layers/scheme_dropout.hpp"
#include "scheme/grid_module.hpp"
#include "tp3d/attention_3d.hpp"
#include "tp3d/mlp_3d.hpp"

namespace tplab::tp3d {
namespace {

/// The block (or linear pair) of this rank on the cube.
std::unique_ptr<ParallelModule> make_block(Device& device, const Grid3D& grid,
                                           const BlockShape& shape, Workload workload,
                                           const TensorMap& p, ExecutionPolicy policy,
                                           std::shared_ptr<BlockDropout> dropout,
                                           Recompute recompute) {
  if (workload == Workload::linear_pair) {
    return std::make_unique<SublayerModule>(
        std::make_unique<Mlp3D>(device, grid, p, Activation::none, policy));
  }
  // A token's features lie on its output group; a feature block's parameters are the same
  // on the q^2 ranks of input_weight, which hold all the tokens.
  const auto layernorm = [&](const std::string& gamma, const std::string& beta) {
    return std::make_unique<LayerNorm>(device, grid.output.get(), grid.input_weight.get(), shape.h,
                                       p.at(gamma), p.at(beta));
  };
  return std::make_unique<PreLnBlock>(
      device, layernorm("ln1_gamma", "ln1_beta"),
      std::make_unique<Attention3D>(device, grid, shape, p, policy, dropout, recompute),
      layernorm("ln2_gamma", "ln2_beta"),
      std::make_unique<Mlp3D>(device, grid, p, Activation::gelu, policy), dropout, recompute);
}

}  // namespace

std::string Scheme3D::why_not(int world_size, const BlockShape& shape) const {
  const int q = cube_side(world_size);
  if (q == 0) return "3D arranges the ranks in a cube of q x q x q, so it needs";
  const std::int64_t blocks = static_cast<std::int64_t>(q) * q;
  if (shape.tokens() % blocks != 0) {
    return fmt::format("3D cuts the tokens into q^2 blocks, so with {} tokens it needs",
                       shape.tokens());
  }
  // h divisible by q^2 makes 4h divisible too: one rule covers every linear's in-features.
  if (shape.h % blocks != 0) {
    return fmt::format(
        "3D cuts the hidden features into q^2 blocks, so with hidden size {} it needs", shape.h);
  }
  if (shape.heads % q != 0) {
    return fmt::format("3D gives each rank n/q whole heads, so with {} heads it needs",
                       shape.heads);
  }
  return {};
}

std::vector<TensorPlacement> Scheme3D::placements(int world_size, const BlockShape& shape,
                                                  Workload workload) const {
  const int p = world_size;
  const std::int64_t q = cube_side(p);
  check(q > 0, fmt::format("3D placements need a cube number of ranks; got {}", p));
  using Block = std::pair<std::int64_t, std::int64_t>;
  const auto at = [&](int rank) { return cube_coordinates(rank, static_cast<int>(q)); };
  const auto place = [&](std::string_view name, std::string rule, std::int64_t row_parts,
                         std::int64_t col_parts, auto which) {
    return blocked(std::string(name), global_extents(name, shape), std::move(rule), p, row_parts,
                   col_parts, which);
  };
  const auto activation = [&](std::string_view name) {
    return place(name, "Shard(0) over weight x input, Shard(1) over output", q * q, q, [&](int r) {
      return Block{at(r).j * q + at(r).i, at(r).k};
    });
  };
  const auto reads_block = [&](std::string_view name) {
    return place(name, "Shard(0) over output x weight, Shard(1) over input", q * q, q, [&](int r) {
      return Block{at(r).k * q + at(r).j, at(r).i};
    });
  };
  const auto writes_block = [&](std::string_view name) {
    return place(name, "Shard(0) over input x weight, Shard(1) over output", q * q, q, [&](int r) {
      return Block{at(r).i * q + at(r).j, at(r).k};
    });
  };
  const auto along_input = [&](std::string_view name) {
    return place(name, "Shard(0) over input, Replicate over output_weight", 1, q, [&](int r) {
      return Block{0, at(r).i};
    });
  };
  const auto along_output = [&](std::string_view name) {
    return place(name, "Shard(0) over output, Replicate over input_weight", 1, q, [&](int r) {
      return Block{0, at(r).k};
    });
  };

  std::vector<TensorPlacement> placements;
  for (auto name : {"x", "dy", "y", "dx"}) placements.push_back(activation(name));
  if (workload == Workload::block) {
    for (auto name : {"ln1_gamma", "ln1_beta", "ln2_gamma", "ln2_beta", "bo"}) {
      placements.push_back(along_output(name));
    }
    for (auto name : {"wq", "wk", "wv"}) placements.push_back(reads_block(name));
    for (auto name : {"bq", "bk", "bv"}) placements.push_back(along_input(name));
    placements.push_back(writes_block("wo"));
  }
  placements.push_back(reads_block("w1"));
  placements.push_back(along_input("b1"));
  placements.push_back(writes_block("w2"));
  placements.push_back(along_output("b2"));
  return with_gradients(std::move(placements));
}

std::unique_ptr<ParallelModule> Scheme3D::make_module(Comm& world, Device& device,
                                                      const BlockShape& shape, Workload workload,
                                                      TensorMap parameters) const {
  validate(world.size(), shape);
  return std::make_unique<GridModule<Grid3D>>(Grid3D::build(world), [&](Grid3D& grid) {
    return make_block(device, grid, shape, workload, parameters, policy_,
                      make_block_dropout(*this, training_, world.size(), world.rank(), shape),
                      training_.recompute);
  });
}

}  // namespace tplab::tp3d
