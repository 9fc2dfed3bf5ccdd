// Lesson 02 checker: the row split exactly (integer inputs), then with real values within the
// f64 tolerance, and how many elements are no longer bitwise equal to one device's product.
#include <fmt/format.h>

#include <cstring>

#include "lesson.hpp"
#include "lessons/common/lesson.hpp"

namespace tplab::lessons::row_split {
namespace {

constexpr std::int64_t kTokens = 8;   // m = b*s = 2*4
constexpr std::int64_t kHidden = 16;  // out = h; in = 4h: the shape of the MLP's second layer

void run_once(Lesson& lesson, bool integers) {
  const int t = lesson.size();
  const std::int64_t in = 4 * kHidden;
  const HostArray x = host_array({kTokens, in}, draw(kTokens * in, 3, integers));
  const HostArray w = host_array({in, kHidden}, draw(in * kHidden, 4, integers));
  const HostArray y = reference_matmul(x, w);  // [m, 4h] x [4h, h] -> [m, h]

  const TensorPlacement x_place = blocked("X_r", x.extents, "Shard(1)", t, 1, t, [](int r) {
    return std::pair<std::int64_t, std::int64_t>{0, r};
  });
  const TensorPlacement w_place = blocked("W_r", w.extents, "Shard(0)", t, t, 1, [](int r) {
    return std::pair<std::int64_t, std::int64_t>{r, 0};
  });
  const TensorPlacement y_place = replicated("Y", y.extents, t);
  if (integers) {
    lesson.print_shards(
        {{"X", "[m, 4h_T]", &x_place}, {"W", "[4h_T, h]", &w_place}, {"Y", "[m, h]", &y_place}});
  }
  Device& device = lesson.device();
  const Tensor x_local = lesson.shard(x, x_place), w_local = lesson.shard(w, w_place);
  CommCounters& counters = lesson.world().counters();
  counters.reset();
  const Tensor got = row_parallel_matmul(device, lesson.world(), x_local, w_local);
  const std::vector<CollectiveCount> counts = lesson.counted(counters.snapshot());
  // The values judged: the exercise's (in a judge, its transcript's), for the bitwise count.
  const std::vector<double> values =
      lesson.expect("Y", y, y_place, got,
                    integers ? exact_tolerance() : verify::tolerance_for(DType::f64, false));
  // The partial products' one all-reduce of [m, h].
  const TensorPlacement pattern = replicated("all-reduce", {3}, t);
  expect_collectives(lesson, "all-reduce", pattern, counts, Collective::all_reduce, 1,
                     static_cast<double>(kTokens * kHidden));
  const bool pass = lesson.report(integers ? "row split, exact (integer inputs)"
                                           : "row split, real values (f64 tolerance)");
  if (!integers && pass && lesson.speaks()) {
    // One device's own product of the whole X and W, for a bitwise comparison.
    const TensorPlacement whole_x = replicated("X", x.extents, t);
    const TensorPlacement whole_w = replicated("W", w.extents, t);
    Tensor one = device.empty({kTokens, kHidden}, DType::f64);
    // [m, 4h] x [4h, h] -> [m, h]
    device.matmul(lesson.shard(x, whole_x), Transpose::no, lesson.shard(w, whole_w), Transpose::no,
                  one);
    const double* a = one.data_as<double>();
    std::int64_t differ = 0;
    for (std::int64_t i = 0; i < one.numel(); ++i) {
      differ += std::memcmp(a + i, &values[static_cast<std::size_t>(i)], 8) != 0;
    }
    fmt::print("  bitwise against one device's X W: {} of {} elements differ{}\n", differ,
               one.numel(), differ > 0 ? " (the sum was taken in another order; see README)" : "");
  }
}

void run(Lesson& lesson) {
  require_world_size(
      lesson, (4 * kHidden) % lesson.size() == 0 && lesson.size() <= 8,
      fmt::format("lesson 02 splits the {} rows of W evenly over t ranks", 4 * kHidden),
      {1, 2, 4, 8});
  lesson.part("forward", [&] {
    run_once(lesson, true);
    run_once(lesson, false);
  });
}

}  // namespace
}  // namespace tplab::lessons::row_split

int main() {
  return tplab::lessons::run_lesson("lesson 02", tplab::lessons::row_split::run);
}
