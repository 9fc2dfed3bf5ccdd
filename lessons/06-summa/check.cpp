// Lesson 06 checker: SUMMA exactly (integer inputs, tolerance 0) on a q x q grid, and the
// broadcasts it made, against the 2q per rank of the algorithm.
#include <fmt/format.h>

#include "lesson.hpp"
#include "lessons/common/lesson.hpp"

namespace tplab::lessons::summa {
namespace {

// Divisible by q = 1, 2 and 3.
constexpr std::int64_t kRows = 12;  // m
constexpr std::int64_t kIn = 24;    // in
constexpr std::int64_t kOut = 18;   // out

void run(Lesson& lesson) {
  const int p = lesson.size();
  const int q = square_root(p);
  require_world_size(lesson, q > 0 && q <= 3,
                     "lesson 06 runs SUMMA on a q x q grid with q = 1, 2 or 3 (q divides every "
                     "side of its 12 x 24 by 24 x 18 product)",
                     {1, 4, 9});
  Grid2D grid = Grid2D::build(lesson.world());
  const HostArray x = host_array({kRows, kIn}, draw(kRows * kIn, 61, true));
  const HostArray w = host_array({kIn, kOut}, draw(kIn * kOut, 62, true));
  const HostArray y = reference_matmul(x, w);  // [m, in] x [in, out] -> [m, out]
  // rank = i*q + j holds block (i, j) of every matrix.
  const auto block = [q](int r) { return std::pair<std::int64_t, std::int64_t>{r / q, r % q}; };
  const TensorPlacement x_place = blocked("X", x.extents, "block (i, j)", p, q, q, block);
  const TensorPlacement w_place = blocked("W", w.extents, "block (i, j)", p, q, q, block);
  const TensorPlacement y_place = blocked("Y", y.extents, "block (i, j)", p, q, q, block);
  lesson.print_shards({{"X", "[m_I, in_J]", &x_place},
                       {"W", "[in_I, out_J]", &w_place},
                       {"Y", "[m_I, out_J]", &y_place}});
  if (lesson.speaks()) {
    fmt::print(
        "  (rank = i*q + j: row group i holds ranks i*q .. i*q+q-1, column group j every "
        "q-th rank from j)\n");
  }
  lesson.part("forward", [&] {
    CommCounters& counters = lesson.world().counters();
    counters.reset();
    const Tensor got =
        summa_forward(lesson.device(), grid, lesson.shard(x, x_place), lesson.shard(w, w_place));
    // Taken before the check's own collectives.
    const std::vector<CollectiveCount> counts = lesson.counted(counters.snapshot());
    lesson.expect("Y", y, y_place, got, exact_tolerance());
    lesson.report(fmt::format("SUMMA on a {} x {} grid, exact (integer inputs)", q, q));
    if (lesson.speaks()) {
      fmt::print(
          "  rank 0's collectives (SUMMA: q = {} broadcasts on row of [m/q, in/q], q on "
          "column of [in/q, out/q]; a group of one counts none):\n",
          q);
      for (const CollectiveCount& c : counts) {
        fmt::print("    {} on {}: {} calls, {} elements\n", collective_name(c.collective), c.group,
                   c.calls, c.elements);
      }
    }
  });
}

}  // namespace
}  // namespace tplab::lessons::summa

int main() {
  return tplab::lessons::run_lesson("lesson 06", tplab::lessons::summa::run);
}
