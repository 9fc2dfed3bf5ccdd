// Lesson 09 checker: the exercise's 3D matmul on the cube, every rank's Y block against the
// single-device product, exactly (small integers make every sum exact); then what it sent,
// as the communication counters saw it, against the exercise's formula.
#include <fmt/format.h>

#include "lesson.hpp"
#include "lessons/common/cube_sums.hpp"
#include "lessons/common/lesson.hpp"
#include "tp3d/linear_roles.hpp"

namespace tplab::lessons::matmul_3d {
namespace {

constexpr std::int64_t kTokens = 8;   // m = b*s = 2*4
constexpr std::int64_t kHidden = 16;  // in = h, out = 4h: the shape of the MLP's first layer

/// A one-element tensor holding `value`, for the scalar rows of the table.
Tensor scalar(Device& device, double value) {
  Tensor t = device.empty({1}, DType::f64);
  device.fill(t, value);
  return t;
}

void run(Lesson& lesson) {
  const int p = lesson.size();
  const int q = cube_side(p);
  require_world_size(lesson, q == 1 || q == 2,
                     fmt::format("lesson 09 arranges the ranks in a cube of q x q x q with q^2 "
                                 "dividing m = {} and h = {}",
                                 kTokens, kHidden),
                     {1, 8});
  const std::int64_t in = kHidden, out = 4 * kHidden;
  const HostArray x = host_array({kTokens, in}, draw(kTokens * in, 9, true));
  const HostArray w = host_array({in, out}, draw(in * out, 10, true));
  const HostArray y = reference_matmul(x, w);  // [m, h] x [h, 4h] -> [m, 4h]

  using Block = std::pair<std::int64_t, std::int64_t>;
  const auto at = [q](int r) { return cube_coordinates(r, q); };
  const std::int64_t qq = static_cast<std::int64_t>(q) * q;
  const TensorPlacement x_place =
      blocked("X", x.extents, "token block j q + i, feature block k", p, qq, q, [&](int r) {
        return Block{at(r).j * q + at(r).i, at(r).k};
      });
  const TensorPlacement w_place =
      blocked("W", w.extents, "in block k q + j, out block i", p, qq, q, [&](int r) {
        return Block{at(r).k * q + at(r).j, at(r).i};
      });
  const TensorPlacement x_gathered_place =
      blocked("X~", x.extents, "token block j, feature block k", p, q, q, [&](int r) {
        return Block{at(r).j, at(r).k};
      });
  const TensorPlacement w_gathered_place =
      blocked("W~", w.extents, "in block k, out block i", p, q, q, [&](int r) {
        return Block{at(r).k, at(r).i};
      });
  const TensorPlacement y_place =
      blocked("Y", y.extents, "token block j q + k, out block i", p, qq, q, [&](int r) {
        return Block{at(r).j * q + at(r).k, at(r).i};
      });
  lesson.print_shards({{"X", "[m_JI, h_K]", &x_place},
                       {"W", "[h_KJ, 4h_I]", &w_place},
                       {"X~", "[m_J, h_K]", &x_gathered_place},
                       {"W~", "[h_K, 4h_I]", &w_gathered_place},
                       {"Y", "[m_JK, 4h_I]", &y_place}});
  if (lesson.speaks()) {
    fmt::print("coordinates (i,j,k) of rank = i + q (j + q k):");
    for (int r = 0; r < p; ++r) fmt::print(" {}=({},{},{})", r, at(r).i, at(r).j, at(r).k);
    fmt::print("\n");
  }

  // Each rank's partial product before the reduce-scatter, P[m_J, 4h_I]{U_K}, from which the
  // sum over any group of the cube follows: the check tells which one Y holds.
  const std::vector<HostArray> partials =
      linear_3d_forward_partials(x, w, tp3d::kReadsBlockLayout, q).y;

  Device& device = lesson.device();
  const Grid3D grid = Grid3D::build(lesson.world());
  lesson.part("forward", [&] {
    CommCounters& counters = lesson.world().counters();
    counters.reset();
    const Tensor y_local =
        matmul_3d(device, grid, lesson.shard(x, x_place), lesson.shard(w, w_place));
    double sent = 0;  // what crossed this rank's links, as the counters record it
    for (const CollectiveCount& c : lesson.counted(counters.snapshot())) sent += c.bus_elements;
    const std::vector<double>& got = lesson.expect("Y", y, y_place, y_local, exact_tolerance());
    const std::string summed = diagnose_group_sum(lesson, got, partials, Axis3D::output);
    if (!summed.empty()) lesson.explain("Y", summed);
    const TensorPlacement one = replicated("scalar", {1}, p);
    lesson.expect("sent", host_array({1}, {sent}), one,
                  scalar(device, matmul_3d_bus_elements(kTokens, in, out, q)), exact_tolerance());
    lesson.report(fmt::format("3D matmul on a {0} x {0} x {0} cube, exact", q));
    if (lesson.speaks()) {
      fmt::print("  sent: your formula against the bus elements the counters recorded ({:g})\n",
                 sent);
    }
  });
}

}  // namespace
}  // namespace tplab::lessons::matmul_3d

int main() {
  return tplab::lessons::run_lesson("lesson 09", tplab::lessons::matmul_3d::run);
}
