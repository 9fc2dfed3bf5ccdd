/// @file
/// DP x TP x PP layouts and their groups.
#include "plan/parallel_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace tplab::model::plan {
namespace {

/// Ranks `stride` apart, `size` of them, form one group: the axis of that stride.
GroupLayout axis_groups(std::string name, int size, int stride) {
  return {std::move(name), size,
          [size, stride](int rank) { return rank % stride + stride * (rank / (stride * size)); }};
}

int pp_stride(const ParallelLayout& l) {
  return l.order == RankOrder::tp_pp_dp ? l.tp : l.tp * l.dp;
}

int dp_stride(const ParallelLayout& l) {
  return l.order == RankOrder::tp_pp_dp ? l.tp * l.pp : l.tp;
}

}  // namespace

std::string ParallelLayout::describe() const {
  return fmt::format("DP {} x TP {} x PP {}", dp, tp, pp);
}

std::vector<ParallelLayout> factorisations(int devices, RankOrder order) {
  std::vector<ParallelLayout> layouts;
  for (int dp = 1; dp <= devices; ++dp) {
    if (devices % dp != 0) continue;
    const int model_parallel = devices / dp;
    for (int tp = 1; tp <= model_parallel; ++tp) {
      if (model_parallel % tp == 0) layouts.push_back({dp, tp, model_parallel / tp, order});
    }
  }
  return layouts;
}

int world_rank(const ParallelLayout& layout, int dp_rank, int pp_rank, int tp_rank) {
  return tp_rank + pp_stride(layout) * pp_rank + dp_stride(layout) * dp_rank;
}

GroupLayout tensor_parallel_groups(const ParallelLayout& layout) {
  return axis_groups("tp", layout.tp, 1);
}

GroupLayout pipeline_groups(const ParallelLayout& layout) {
  return axis_groups("pp", layout.pp, pp_stride(layout));
}

GroupLayout data_parallel_groups(const ParallelLayout& layout) {
  return axis_groups("dp", layout.dp, dp_stride(layout));
}

GroupLayout within_tensor_parallel_groups(const ParallelLayout& layout, const GroupLayout& inner) {
  // Colors of different TP groups must not meet: offset each by the span of the grid's colors.
  int span = 1;
  for (int r = 0; r < layout.tp; ++r) span = std::max(span, inner.color(r) + 1);
  const int tp = layout.tp;
  const auto color = inner.color;
  return {inner.name, inner.size,
          [tp, span, color](int rank) { return rank / tp * span + color(rank % tp); }};
}

}  // namespace tplab::model::plan
