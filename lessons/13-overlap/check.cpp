// Lesson 13 checker: the exercise's overlapped backward of the 1D MLP against the single-device
// reference, and whether it overlapped: a matrix product of its own ran while a collective it
// started was in flight (from the intervals the counters and the device record, never from
// times compared with a threshold). Then its time and the communication it left exposed beside
// the library's own Mlp1D, overlapped and blocking, on the same shards in the same run; the
// times are printed for the learner and never decide the verdict: on a shared machine they vary
// from run to run.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "device/ops/cpu_ops.hpp"
#include "layers/activation.hpp"
#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "lessons/common/reference_mlp.hpp"
#include "problem.hpp"
#include "reference_bridge.hpp"
#include "tp1d/mlp_1d.hpp"
#include "tp1d/scheme_1d.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab::lessons::overlap {
namespace {

/// The checked MLP: m = 8 tokens, h = 16, 4h = 64 (lesson 03's).
constexpr BlockShape kCheckedShape{2, 4, 16, 4};
/// The timed MLP: m = 256, h = 128, 4h = 512, large enough that a GEMM outlasts a call's
/// overhead and small enough that four ranks sharing two cores time it in about a second.
constexpr BlockShape kTimedShape{4, 64, 128, 4};
constexpr int kWarmups = 3;
constexpr int kRepetitions = 9;

/// When each matrix product of this rank ran, on the steady clock (seconds since its epoch).
std::vector<std::pair<double, double>>& matmul_spans() {
  static std::vector<std::pair<double, double>> spans;
  return spans;
}

/// The CPU's matrix products, each one's span filed in matmul_spans(): the computation a
/// started collective can be in flight beside.
class TimedGemm final : public GemmOps {
 public:
  explicit TimedGemm(std::unique_ptr<GemmOps> inner) : inner_(std::move(inner)) {}
  void matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c, double alpha,
              double beta) override {
    const double begin = now();
    inner_->matmul(a, ta, b, tb, c, alpha, beta);
    matmul_spans().emplace_back(begin, now());
  }
  void batched_matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                      double alpha, double beta) override {
    const double begin = now();
    inner_->batched_matmul(a, ta, b, tb, c, alpha, beta);
    matmul_spans().emplace_back(begin, now());
  }

 private:
  static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  std::unique_ptr<GemmOps> inner_;
};

/// How many of the matrix products since `first` ran wholly while one of `flights` (started
/// all-reduces) was in flight: 0 for a blocking all-reduce, or one waited for at once.
int products_in_flight(const std::vector<InFlight>& flights, std::size_t first) {
  int inside = 0;
  for (std::size_t i = first; i < matmul_spans().size(); ++i) {
    const auto [begin, end] = matmul_spans()[i];
    inside += std::any_of(flights.begin(), flights.end(), [&](const InFlight& f) {
      return f.collective == Collective::all_reduce && f.from <= begin && end <= f.to;
    });
  }
  return inside;
}

/// The single-device MLP's gradients, by the names the check uses.
verify::HostArrays reference_gradients(const BlockShape& shape, const verify::HostArrays& in) {
  const ReferenceMlp r = reference_mlp(verify::to_reference_matrix<double>(in.at("x")), in);
  verify::HostArrays out;
  out.emplace("dx", verify::to_host_array(r.da, global_extents("dx", shape)));
  out.emplace("d_w1", verify::to_host_array(r.dw1, global_extents("w1", shape)));
  out.emplace("d_b1", verify::to_host_array(r.db1, global_extents("b1", shape)));
  out.emplace("d_w2", verify::to_host_array(r.dw2, global_extents("w2", shape)));
  out.emplace("d_b2", verify::to_host_array(r.db2, global_extents("b2", shape)));
  return out;
}

/// One rank's inputs to the backward: its shards, dY, and the forward's saved tensors, which
/// the checker computes (lesson 03 is where the forward is written).
struct Problem {
  MlpShards p;
  MlpSaved saved;
  Tensor dy;
};

Problem make_problem(Lesson& lesson, const verify::HostArrays& in,
                     const std::vector<TensorPlacement>& places) {
  const auto shard = [&](const char* name) {
    return lesson.shard(in.at(name), find_placement(places, name));
  };
  Device& device = lesson.device();
  Problem pr{
      {shard("w1"), shard("b1"), shard("w2"), shard("b2")}, {shard("x"), {}, {}}, shard("dy")};
  const Tensor& x = pr.saved.x;
  pr.saved.hidden = device.empty({x.rows(), pr.p.w1.cols()}, x.dtype());
  // [m, h] x [h, 4h/t] -> [m, 4h/t]
  device.matmul(x, Transpose::no, pr.p.w1, Transpose::no, pr.saved.hidden);
  device.add_bias(pr.saved.hidden, pr.p.b1);
  pr.saved.act = device.empty(pr.saved.hidden.extents(), x.dtype());
  device.gelu_forward(pr.saved.hidden, pr.saved.act);
  return pr;
}

/// The 1D scheme's placements of the MLP: W1 and b1 by columns, W2 by rows, b2, X and dY whole.
std::vector<TensorPlacement> mlp_placements(int t, const BlockShape& shape) {
  return tp1d::Scheme1D().placements(t, shape, Workload::linear_pair);
}

bool check_gradients(Lesson& lesson) {
  const int t = lesson.size();
  // Integer inputs keep X W1 + b1 and every sum of dY exact; GELU's derivative is not an
  // integer, so the gradients are compared within the f64 tolerance.
  const verify::HostArrays in = verify::make_inputs(kCheckedShape, input_seed(13),
                                                    Workload::linear_pair, verify::Values::integer);
  const verify::HostArrays want = reference_gradients(kCheckedShape, in);
  const std::vector<TensorPlacement> places = mlp_placements(t, kCheckedShape);
  const auto place = [&](std::string_view name) -> const TensorPlacement& {
    return find_placement(places, name);
  };
  lesson.print_shards({{"X", "[m, h]", &place("x")},
                       {"dY", "[m, h]", &place("dy")},
                       {"W1", "[h, 4h_T]", &place("w1")},
                       {"b1", "[4h_T]", &place("b1")},
                       {"W2", "[4h_T, h]", &place("w2")},
                       {"b2", "[h]", &place("b2")},
                       {"dX", "[m, h]", &place("dx")}});
  const Problem pr = make_problem(lesson, in, places);
  CommCounters& counters = lesson.world().counters();
  counters.reset();
  const std::size_t first_product = matmul_spans().size();
  const MlpGradients g =
      mlp_backward_overlapped(lesson.device(), lesson.world(), pr.p, pr.saved, pr.dy);
  const int overlapped = products_in_flight(counters.in_flight(), first_product);
  const Tolerance tolerance = verify::tolerance_for(DType::f64, false);
  const std::pair<const char*, const Tensor*> results[] = {
      {"dx", &g.dx}, {"d_w1", &g.d_w1}, {"d_b1", &g.d_b1}, {"d_w2", &g.d_w2}, {"d_b2", &g.d_b2}};
  for (const auto& [name, got] : results) {
    lesson.expect(name, want.at(name), place(name), *got, tolerance);
  }
  // What the lesson teaches: dX's all-reduce started, and a product (dW1) computed while it
  // travels. One rank communicates nothing, so there is nothing to overlap.
  const TensorPlacement one = replicated("overlap", {1}, t);  // alive until the report
  if (t > 1) {
    Tensor got = lesson.device().empty({1}, DType::f64);
    lesson.device().upload(std::vector<double>{overlapped > 0 ? 1.0 : 0.0}, got);
    lesson.expect("overlap", host_array({1}, {1.0}), one, got, exact_tolerance());
    lesson.explain("overlap",
                   "no matrix product of yours ran while an all-reduce you started was in "
                   "flight: start dX's all-reduce (tp.start_all_reduce), compute dW1 and db1, "
                   "then wait");
  }
  return lesson.report("1D MLP backward, dX's all-reduce overlapped (f64 tolerance)");
}

/// One backward's wall time, the part of it this rank spent blocked in collectives, and the
/// time its collectives were in flight while it computed (zero for a blocking collective).
struct Timing {
  double step_s = 0;
  double exposed_s = 0;
  double hidden_s = 0;
};

/// The median over kRepetitions runs of `step` (after kWarmups), on this rank. Every run
/// starts together on every rank.
Timing time_step(Lesson& lesson, const char* series, const std::function<void()>& step) {
  CommCounters& counters = lesson.world().counters();
  std::vector<double> steps, exposed, hidden;
  for (int run = 0; run < kWarmups + kRepetitions; ++run) {
    lesson.world().barrier();
    counters.reset();
    // Under `lesson check --trace`, each run is a step of `series` on the timeline.
    TraceScope traced(lesson.device().trace(), fmt::format("{} {}", series, run), "step",
                      {{"series", series}, {"index", run}, {"timed", run >= kWarmups}});
    const auto start = std::chrono::steady_clock::now();
    step();
    lesson.device().synchronize();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    traced.close();
    if (run < kWarmups) continue;
    steps.push_back(elapsed.count());
    exposed.push_back(counters.total_exposed_seconds());
    hidden.push_back(counters.total_seconds() - counters.total_exposed_seconds());
  }
  const auto median = [](std::vector<double>& v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  return {median(steps), median(exposed), median(hidden)};
}

/// Times the exercise's backward and the library's Mlp1D backward, overlapped and blocking,
/// on the shards of kTimedShape, and prints the slowest rank's medians on rank 0.
void compare_times(Lesson& lesson) {
  const int t = lesson.size();
  Device& device = lesson.device();
  Comm& tp = lesson.world();
  const verify::HostArrays in =
      verify::make_inputs(kTimedShape, input_seed(14), Workload::linear_pair, verify::Values::real);
  const Problem pr = make_problem(lesson, in, mlp_placements(t, kTimedShape));
  const TensorMap parameters{{"w1", pr.p.w1}, {"b1", pr.p.b1}, {"w2", pr.p.w2}, {"b2", pr.p.b2}};
  tp1d::Mlp1D overlapped(device, tp, parameters, Activation::gelu, {.overlap = true});
  tp1d::Mlp1D blocking(device, tp, parameters, Activation::gelu, {.overlap = false});
  overlapped.forward(pr.saved.x);  // each keeps what its backward reads
  blocking.forward(pr.saved.x);

  const Timing yours = time_step(
      lesson, "yours", [&] { mlp_backward_overlapped(device, tp, pr.p, pr.saved, pr.dy); });
  const Timing library = time_step(lesson, "library", [&] { overlapped.backward(pr.dy); });
  const Timing library_blocking =
      time_step(lesson, "library, blocking", [&] { blocking.backward(pr.dy); });

  // A step lasts as long as its slowest rank.
  const std::vector<double> local{
      yours.step_s,      yours.exposed_s,  yours.hidden_s,          library.step_s,
      library.exposed_s, library.hidden_s, library_blocking.step_s, library_blocking.exposed_s};
  Tensor slowest = device.empty({static_cast<std::int64_t>(local.size())}, DType::f64);
  device.upload(local, slowest);
  tp.all_reduce(slowest, ReduceOp::max);
  std::vector<double> ms(local.size());
  device.download(slowest, ms);
  if (lesson.rank() != 0) return;
  for (double& v : ms) v *= 1e3;
  fmt::print(
      "\ntimed on X[m, h] = [{}, {}] and W1[h, 4h_T] = [{}, {}] per rank, the median of {} runs\n"
      "after {} to warm up, the slowest rank's (informational: the verdict does not depend on "
      "it):\n",
      kTimedShape.tokens(), kTimedShape.h, kTimedShape.h, kTimedShape.ffn() / t, kRepetitions,
      kWarmups);
  fmt::print(
      "  your step: {:.3f} ms, the library's: {:.3f} ms; exposed communication: yours "
      "{:.3f} ms, the library's {:.3f} ms\n",
      ms[0], ms[3], ms[1], ms[4]);
  fmt::print(
      "  in flight while computing: yours {:.3f} ms, the library's {:.3f} ms (0 for a "
      "collective that blocks, or is waited for at once)\n",
      ms[2], ms[5]);
  fmt::print(
      "  the library's with blocking collectives: step {:.3f} ms, exposed communication "
      "{:.3f} ms\n",
      ms[6], ms[7]);
  if (t == 1) fmt::print("  one rank: nothing to communicate, so nothing to overlap\n");
  if (const std::string trace = lesson.trace_path(); !trace.empty()) {
    fmt::print(
        "  your trace: {} (steps \"yours\", \"library\" and \"library, blocking\"; exposed "
        "communication yours {:.3f} ms, the library's {:.3f} ms): see it with\n"
        "    ./tplab report {} -o DIR, or open it in Perfetto or chrome://tracing\n",
        trace, ms[1], ms[4], trace);
  }
  std::fflush(stdout);
}

void run(Lesson& lesson) {
  const int t = lesson.size();
  require_world_size(
      lesson,
      kCheckedShape.ffn() % t == 0 && kTimedShape.ffn() % t == 0 && kCheckedShape.heads % t == 0 &&
          t <= 4,
      fmt::format("lesson 13 splits the {} columns of W1 evenly over t ranks", kCheckedShape.ffn()),
      {1, 2, 4});
  // The lesson's one step is a backward: its forward is the checker's (lesson 03 writes it).
  lesson.part("backward", [&] {
    // Timing the exercise is for its own job: a judge runs none of its code.
    if (check_gradients(lesson) && lesson.runs_exercise()) compare_times(lesson);
  });
}

}  // namespace
}  // namespace tplab::lessons::overlap

int main() {
  return tplab::lessons::run_lesson("lesson 13", tplab::lessons::overlap::run, [] {
    tplab::DeviceFamilies families = tplab::cpu::make_families();
    families.gemm = std::make_unique<tplab::lessons::overlap::TimedGemm>(std::move(families.gemm));
    return families;
  });
}
