// The cost model against the counters: at every world size of the mpiexec (1, 2, 4, 8, 9),
// every scheme that runs there, several shapes and both workloads, each rank's collectives of
// each phase equal the model's, collective by collective and group by group, with no
// tolerance. 1D runs at 1, 2 and 4 ranks, 2D at 1, 4 and 9, 2.5D at 2, 4, 8 and 9. And the
// model's groups, by which it places collectives on nodes, hold the ranks of the grids' groups.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "grid/grid_1d.hpp"
#include "grid/grid_2d.hpp"
#include "grid/grid_2p5d.hpp"
#include "grid/grid_3d.hpp"
#include "harness.hpp"
#include "rank_cost.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"
#include "tp2p5d/scheme_2p5d.hpp"

namespace tplab::model {

/// How GoogleTest prints a row when an expectation fails (found by argument-dependent lookup).
void PrintTo(const PredictedCollective& r, std::ostream* out) {
  *out << fmt::format("{} on {}({}): {} calls, {} elements", collective_name(r.collective), r.group,
                      r.group_size, r.calls, r.elements);
}

namespace {

/// Shapes with several batch sizes, heads and hidden sizes; each scheme runs those it can
/// split at the world size of the test.
const BlockShape kShapes[] = {{2, 8, 32, 4}, {4, 6, 48, 4}, {12, 4, 72, 12},
                              {8, 3, 16, 4}, {6, 5, 36, 6}, {16, 2, 24, 2}};

/// One measured phase in the model's terms, so that both sides print alike on failure.
std::vector<PredictedCollective> as_predicted(const std::vector<CollectiveCount>& measured) {
  std::vector<PredictedCollective> out;
  for (const auto& c : measured) {
    out.push_back({c.collective, c.op, c.root, c.group, c.group_size, c.calls, c.elements});
  }
  return out;
}

std::string describe(const std::vector<PredictedCollective>& rows) {
  std::string text;
  for (const auto& r : rows) {
    text += fmt::format("  {} on {}({}): {} calls, {} elements\n",
                        collective_form(r.collective, r.op, r.root), r.group, r.group_size, r.calls,
                        r.elements);
  }
  return text.empty() ? "  none\n" : text;
}

class CommModel : public testing::Test {
 protected:
  CommModel() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}

  /// Runs `scheme` on every shape it can split here, block and linear pair, and compares.
  /// Returns how many runs it compared.
  int expect_exact(const std::string& scheme, int depth = 0) {
    const auto s = make_scheme(scheme, SchemeOptions{.depth = depth});
    int runs = 0;
    for (const BlockShape& shape : kShapes) {
      if (!s->why_not(world->size(), shape).empty()) continue;
      for (bool exact : {false, true}) {
        verify::RunConfig c;
        c.scheme = scheme;
        c.options.depth = depth;
        c.shape = shape;
        c.exact = exact;
        const verify::RunResult r = verify::run_verification(*world, device, c);
        const Workload workload = exact ? Workload::linear_pair : Workload::block;
        const CommPrediction model =
            rank_cost(scheme, c.options, world->size(), shape, workload).comm;
        const std::string where = fmt::format("{} ({}) np={} {} {}", scheme, r.grid, world->size(),
                                              to_string(shape), exact ? "linear pair" : "block");
        const auto forward = as_predicted(r.comm_forward);
        const auto backward = as_predicted(r.comm_backward);
        EXPECT_EQ(forward, model.forward.rows()) << where << ", forward\nmeasured:\n"
                                                 << describe(forward) << "model:\n"
                                                 << describe(model.forward.rows());
        EXPECT_EQ(backward, model.backward.rows()) << where << ", backward\nmeasured:\n"
                                                   << describe(backward) << "model:\n"
                                                   << describe(model.backward.rows());
        EXPECT_TRUE(r.properties.holds(verify::Property::comm)) << where;
        EXPECT_TRUE(r.pass) << where;
        ++runs;
      }
    }
    return runs;
  }

  /// The world ranks of `group`'s members, ascending.
  std::vector<int> members(Comm& group) {
    Tensor mine = device.empty({1}, DType::f64);
    device.fill(mine, world->rank());
    Tensor all = device.empty({group.size()}, DType::f64);
    group.all_gather(mine, all);
    std::vector<int> ranks(all.data_as<double>(), all.data_as<double>() + group.size());
    std::sort(ranks.begin(), ranks.end());
    return ranks;
  }

  /// This rank's groups in the grid that `scheme`'s module builds on this world, by name.
  std::map<std::string, std::vector<int>> grid_members(const std::string& scheme,
                                                       const BlockShape& shape) {
    if (scheme == "1d" || scheme == "1d-sp") {
      const Grid1D grid = Grid1D::build(*world);
      return {{"tp", members(*grid.tp)}};
    }
    if (scheme == "2d") {
      const Grid2D grid = Grid2D::build(*world);
      return {{"row", members(*grid.row)}, {"column", members(*grid.column)}};
    }
    if (scheme == "2.5d") {
      const int d = tp2p5d::Scheme2p5D().depth_for(world->size(), shape);
      const Grid2p5D grid = Grid2p5D::build(*world, d);
      return {{"row", members(*grid.layer.row)},
              {"column", members(*grid.layer.column)},
              {"depth", members(*grid.depth)}};
    }
    if (scheme == "3d") {
      const Grid3D grid = Grid3D::build(*world);
      return {{"input", members(*grid.input)},
              {"weight", members(*grid.weight)},
              {"output", members(*grid.output)},
              {"input_weight", members(*grid.input_weight)},
              {"output_weight", members(*grid.output_weight)}};
    }
    ADD_FAILURE() << "this test knows no grid for scheme " << scheme;
    return {};
  }

  CpuDevice device;
  std::unique_ptr<Comm> world;
};

TEST_F(CommModel, EverySchemeThatRunsAtThisWorldSize) {
  // Every scheme tplab knows, on every shape it can split here: a scheme added later is
  // checked by this test as soon as it is known, at the world sizes below that fit it.
  const std::map<std::string, std::vector<int>> verified_at = {
      {"1d", {1, 2, 4}}, {"2d", {1, 4, 9}}, {"2.5d", {4, 8}}};
  int runs = 0;
  for (const std::string& scheme : scheme_names()) {
    const int here = expect_exact(scheme);
    runs += here;
    const auto sizes = verified_at.find(scheme);
    if (sizes != verified_at.end() && std::find(sizes->second.begin(), sizes->second.end(),
                                                world->size()) != sizes->second.end()) {
      EXPECT_GE(here, 4) << scheme << " at " << world->size() << " ranks: two shapes or more";
    }
  }
  EXPECT_GE(runs, 4) << "some scheme runs at " << world->size() << " ranks";
}

TEST_F(CommModel, TwoAndAHalfDimensionalWithMeshesOfOneRank) {
  // q = 1: the row and column groups have one rank and are not counted; only depth remains.
  const int p = world->size();
  if (p != 4 && p != 8) GTEST_SKIP() << "runs d = p layers at 4 and 8 ranks";
  EXPECT_GE(expect_exact("2.5d", p), 2);
}

TEST_F(CommModel, GroupLayoutsHoldTheRanksOfTheGridsGroups) {
  // The model decides which groups cross nodes from GroupLayout::color; each of its groups must
  // hold the very ranks the grid of parallel/grid/ puts in the group of that name.
  const int p = world->size();
  int checked = 0;
  for (const std::string& scheme : scheme_names()) {
    const auto s = make_scheme(scheme);
    const auto shape = std::find_if(std::begin(kShapes), std::end(kShapes),
                                    [&](const BlockShape& b) { return s->why_not(p, b).empty(); });
    if (shape == std::end(kShapes)) continue;
    const RankCost cost = rank_cost(scheme, {}, p, *shape, Workload::block);
    const auto grid = grid_members(scheme, *shape);
    for (const GroupLayout& layout : cost.groups) {
      std::vector<int> model;
      for (int r = 0; r < p; ++r) {
        if (layout.color(r) == layout.color(world->rank())) model.push_back(r);
      }
      ASSERT_TRUE(grid.contains(layout.name)) << scheme << " has no grid group " << layout.name;
      EXPECT_EQ(model, grid.at(layout.name))
          << scheme << " at " << p << " ranks, group " << layout.name << ", rank " << world->rank();
      EXPECT_EQ(static_cast<int>(model.size()), layout.size) << scheme << " " << layout.name;
      ++checked;
    }
  }
  if (p > 1) {
    EXPECT_GE(checked, 1) << "some scheme has a group at " << p << " ranks";
  }
}

}  // namespace
}  // namespace tplab::model
