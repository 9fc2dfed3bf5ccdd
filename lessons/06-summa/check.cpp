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
    // The pattern is the lesson: per rank, q broadcasts of [m/q, in/q] on its row, q of
    // [in/q, out/q] on its column, and nothing else (a grid of one rank communicates nothing).
    // [row calls, row N, column calls, column N, other calls], as the counters recorded them.
    std::vector<double> pattern(5, 0.0);
    for (const CollectiveCount& c : counts) {
      const bool row = c.group == "row", column = c.group == "column";
      if (c.collective != Collective::broadcast || (!row && !column)) {
        pattern[4] += static_cast<double>(c.calls);
        continue;
      }
      pattern[row ? 0 : 2] += static_cast<double>(c.calls);
      pattern[row ? 1 : 3] += static_cast<double>(c.elements);
    }
    const TensorPlacement per_rank = replicated("broadcasts", {5}, p);
    if (q > 1) {
      const double qd = q;
      const std::vector<double> summa = {qd, qd * (kRows / qd) * (kIn / qd), qd,
                                         qd * (kIn / qd) * (kOut / qd), 0};
      Tensor measured = lesson.device().empty({5}, DType::f64);
      lesson.device().upload(pattern, measured);
      lesson.expect_measured("broadcasts", host_array({5}, summa), per_rank, measured,
                             exact_tolerance());
      lesson.explain("broadcasts",
                     "[row calls, row N, column calls, column N, other calls] per rank: SUMMA "
                     "makes q broadcasts of X's block along its row and q of W's along its "
                     "column, and no other collective");
    }
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
