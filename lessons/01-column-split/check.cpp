// Lesson 01 checker: runs the exercise's column split at this world size and compares Y_r and
// the gathered Y with the single-device product, exactly (small integers make every sum exact).
#include <fmt/format.h>

#include "lesson.hpp"
#include "lessons/common/lesson.hpp"

namespace tplab::lessons::column_split {
namespace {

constexpr std::int64_t kTokens = 8;   // m = b*s = 2*4
constexpr std::int64_t kHidden = 16;  // in = h, out = 4h: the shape of the MLP's first layer

void run(Lesson& lesson) {
  const int t = lesson.size();
  const std::int64_t out = 4 * kHidden;
  require_world_size(lesson, out % t == 0 && t <= 8,
                     fmt::format("lesson 01 splits the {} columns of W evenly over t ranks", out),
                     {1, 2, 4, 8});
  const HostArray x = host_array({kTokens, kHidden}, draw(kTokens * kHidden, 1, true));
  const HostArray w = host_array({kHidden, out}, draw(kHidden * out, 2, true));
  const HostArray y = reference_matmul(x, w);  // [m, h] x [h, 4h] -> [m, 4h]

  const TensorPlacement x_place = replicated("X", x.extents, t);
  const auto column_block = [](int r) { return std::pair<std::int64_t, std::int64_t>{0, r}; };
  const TensorPlacement w_place = blocked("W", w.extents, "Shard(1)", t, 1, t, column_block);
  const TensorPlacement y_shard_place =
      blocked("Y_r", y.extents, "Shard(1)", t, 1, t, column_block);
  const TensorPlacement y_place = replicated("Y", y.extents, t);
  lesson.print_shards({{"X", "[m, h]", &x_place},
                       {"W", "[h, 4h_T]", &w_place},
                       {"Y_r", "[m, 4h_T]", &y_shard_place},
                       {"Y", "[m, 4h]", &y_place}});

  lesson.part("forward", [&] {
    Device& device = lesson.device();
    const Tensor x_local = lesson.shard(x, x_place);
    const Tensor w_local = lesson.shard(w, w_place);
    CommCounters& counters = lesson.world().counters();
    counters.reset();
    const Tensor y_local = column_parallel_matmul(device, x_local, w_local);
    lesson.expect("Y_r", y, y_shard_place, y_local, exact_tolerance());
    const Tensor y_full = gather_columns(device, lesson.world(), y_local);
    const std::vector<CollectiveCount> counts = lesson.counted(counters.snapshot());
    lesson.expect("Y", y, y_place, y_full, exact_tolerance());
    // The split needs no communication; putting Y together needs one all-gather of [m, 4h].
    const TensorPlacement pattern = replicated("all-gather", {3}, t);
    expect_collectives(lesson, "all-gather", pattern, counts, Collective::all_gather, 1,
                       static_cast<double>(kTokens * out));
    lesson.report("column split, exact (integer inputs)");
  });
}

}  // namespace
}  // namespace tplab::lessons::column_split

int main() {
  return tplab::lessons::run_lesson("lesson 01", tplab::lessons::column_split::run);
}
