// Lesson 17 checker: the exercise's 1F1B loop, run on every stage of a small GPT cut into S
// stages (S = 2 on 2 ranks; S = 4, and S = 2 stages of a 1D group of T = 2, on 4 ranks) for M = 3
// and M = 8 micro-batches. Three tests: every loss and gradient against the serial run of the
// same micro-batches one after another on one stage, bit for bit; the loop's sends and receives
// on the group "pp", counted; and the most micro-batches it kept for backward at once, with their
// bytes measured on the device as the library's executor measures them. The counts and the
// memory are scored only where the bits pass: a loop in GPipe's order passes the bits and the
// transfers and loses the memory alone. A loop that deadlocks is stopped, each stalled rank
// saying where it waits.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <span>
#include <thread>

#include "core/error.hpp"
#include "gpt/gpt_model.hpp"
#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "mesh/mesh_layout.hpp"
#include "pipeline/stage_actions.hpp"
#include "pipeline/stage_step.hpp"
#include "rank_shards.hpp"
#include "registry/make_scheme.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab::lessons::pipeline_stage {
namespace {

using pipeline::MicroBatch;
using pipeline::StageAction;
using Clock = std::chrono::steady_clock;

/// One micro-batch of the GPT: b = 2 sequences of s = 4 tokens (m = 8), h = 16, 2 heads, over a
/// vocabulary of V = 32; L = 4 blocks, so that 2 and 4 stages hold whole blocks.
const gpt::GptShape kShape{BlockShape{2, 4, 16, 2}, 32, 4};
/// M: fewer micro-batches than 4 stages' warm-up needs (stage 0 of 4 runs all 3 forwards
/// first), and enough for a long steady state.
constexpr std::array<int, 2> kMicroBatches = {3, 8};
/// How long a rank's loop may go without finishing one call of its stage before the check says
/// where it waits and ends the job: longer than a rank that left a part waits for the others
/// (lesson.cpp), so that an error on one stage is reported as itself, not as its neighbours'
/// wait.
constexpr double kStallSeconds = 40;

// ---- The pipelines the check builds

/// S stages of T ranks each: world rank = stage x T + tp rank (mesh/mesh_layout.hpp, one
/// replica).
struct Layout {
  int stages = 1;  ///< S
  int tp = 1;      ///< T, the 1D group of each stage
};

/// One run of the exercise's loop: a layout and M.
struct Case {
  Layout layout;
  int micro_batches = 1;

  std::string text() const {
    return fmt::format("S = {} x T = {}, M = {}", layout.stages, layout.tp, micro_batches);
  }
};

std::vector<Layout> layouts_for(int p) {
  if (p == 2) return {{2, 1}};
  if (p == 4) return {{4, 1}, {2, 2}};
  return {};
}

std::vector<Case> cases_for(int p) {
  std::vector<Case> cases;
  for (const Layout& layout : layouts_for(p)) {
    for (int m : kMicroBatches) cases.push_back({layout, m});
  }
  return cases;
}

MeshLayout mesh_of_layout(const Layout& layout) {
  return MeshLayout{.replicas = 1, .scheme_ranks = layout.tp, .stages = layout.stages};
}

/// 1F1B's micro-batches in flight at the peak on stage s: min(S - s, M).
int one_f_one_b_in_flight(int stages, int stage, int micro_batches) {
  return std::min(stages - stage, micro_batches);
}

/// The GPT's parameters, whole, and the micro-batches' token ids and targets, drawn from the
/// run's seed (a grade draws others).
struct Problem {
  verify::HostArrays parameters;
  std::vector<MicroBatch> batches;  ///< the most micro-batches any case runs
};

Problem make_problem() {
  Problem p;
  std::uint64_t seed = 170;
  // value + spread x a draw uniform in [-1, 1)
  const auto add = [&](const std::string& name, const Extents& extents, double spread,
                       double value) {
    std::vector<double> v = draw(element_count(extents), seed++, false);
    for (double& x : v) x = value + spread * x;
    p.parameters.emplace(name, host_array(extents, std::move(v)));
  };
  add("embedding", gpt::gpt_extents("embedding", kShape), 1.0, 0.0);
  for (std::int64_t l = 0; l < kShape.layers; ++l) {
    for (std::string_view name : kBlockParameters) {
      const Extents extents = global_extents(name, kShape.block);
      const std::string global = gpt::layer_parameter(name, l);
      if (name.starts_with("w")) {
        add(global, extents, 1.0 / std::sqrt(static_cast<double>(extents[0])), 0.0);
      } else {
        add(global, extents, 0.1, name.ends_with("gamma") ? 1.0 : 0.0);
      }
    }
  }
  add("lnf_gamma", gpt::gpt_extents("lnf_gamma", kShape), 0.1, 1.0);
  add("lnf_beta", gpt::gpt_extents("lnf_beta", kShape), 0.1, 0.0);
  add("w_head", gpt::gpt_extents("w_head", kShape),
      1.0 / std::sqrt(static_cast<double>(kShape.block.h)), 0.0);
  add("b_head", gpt::gpt_extents("b_head", kShape), 0.1, 0.0);
  const std::int64_t m = kShape.block.tokens();
  const auto token_ids = [&] {  // m ids in 0..V-1
    std::vector<std::int64_t> ids;
    for (double u : draw(m, seed++, false)) {
      ids.push_back(
          std::min(kShape.vocab - 1,
                   static_cast<std::int64_t>((u + 1.0) / 2.0 * static_cast<double>(kShape.vocab))));
    }
    return ids;
  };
  for (int i = 0; i < kMicroBatches.back(); ++i) {
    std::vector<std::int64_t> ids = token_ids();
    p.batches.push_back({ids, token_ids()});
  }
  return p;
}

/// What one case builds on every rank: its mesh and groups, the 1D scheme and its GPT layout.
struct Setup {
  Case c;
  MeshLayout mesh;
  MeshComms comms;  ///< "replica": the stage's 1D group; "pp": its pipeline group
  std::unique_ptr<Scheme> scheme;
  std::unique_ptr<gpt::GptLayout> layout;
  std::vector<TensorPlacement> placements;  ///< on one stage's T ranks
  gpt::GptStage stage;
  int tp_rank = 0;
};

/// The case's mesh on the lesson's world. Collective.
Setup make_setup(Lesson& lesson, const Case& c) {
  Setup s;
  s.c = c;
  s.mesh = mesh_of_layout(c.layout);
  s.comms = split_mesh(lesson.world(), s.mesh);
  s.scheme = make_scheme("1d");
  s.layout = gpt::make_gpt_layout("1d", SchemeOptions{});
  s.placements = gpt::gpt_parameter_placements(*s.scheme, *s.layout, c.layout.tp, kShape);
  s.stage = {.stage = s.mesh.stage_of(lesson.rank()), .stages = c.layout.stages};
  s.tp_rank = s.mesh.scheme_rank_of(lesson.rank());
  return s;
}

/// Stage `stage` of the GPT on this rank's 1D group, from its shards of the parameters that
/// stage holds, for the case's M micro-batches. Collective over the group.
std::unique_ptr<gpt::GptModel> build_stage(Lesson& lesson, Setup& s, const Problem& problem,
                                           gpt::GptStage stage) {
  TensorMap shards;
  for (const auto& [name, array] : problem.parameters) {
    if (gpt::stage_holding(name, kShape, stage.stages) != stage.stage) continue;
    shards.emplace(name,
                   verify::upload_shard(lesson.device(), array, find_placement(s.placements, name),
                                        s.tp_rank, DType::f64));
  }
  const std::vector<const Scheme*> schemes(static_cast<std::size_t>(s.c.micro_batches),
                                           s.scheme.get());
  return std::make_unique<gpt::GptModel>(*s.comms.replica, lesson.device(), schemes, *s.layout,
                                         kShape, std::move(shards), kShape.vocab, stage,
                                         DType::f64);
}

// ---- The stage the exercise drives

/// "the 3rd".
std::string ordinal(int n) {
  const char* suffix = n % 100 / 10 == 1 ? "th"
                       : n % 10 == 1     ? "st"
                       : n % 10 == 2     ? "nd"
                       : n % 10 == 3     ? "rd"
                                         : "th";
  return fmt::format("the {}{}", n, suffix);
}

/// Watches the exercise's loop on this rank while it runs: when no call of the stage has
/// returned for kStallSeconds, prints what the rank ran and where it waits, then ends the
/// process (after a moment, so that the other stalled ranks say where they wait too). A
/// deadlock's blocking receive never returns, and the job would otherwise run into the
/// launcher's time-out saying nothing of where. No MPI call is made from its thread.
class Watchdog {
 public:
  explicit Watchdog(std::string who) : who_(std::move(who)), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      const std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// A call of the stage begins: what the rank is doing while inside it.
  void enter(std::string what) {
    const std::lock_guard lock(mutex_);
    inside_ = std::move(what);
  }
  /// The call returned; `done` is what it did ("F3"), kept in the history when not empty.
  void leave(const std::string& done) {
    const std::lock_guard lock(mutex_);
    inside_.clear();
    if (!done.empty()) history_ += (history_.empty() ? "" : " ") + done;
    last_ = Clock::now();
  }

 private:
  void watch() {
    std::unique_lock lock(mutex_);
    while (!done_) {
      wake_.wait_for(lock, std::chrono::seconds(1));
      const double idle = std::chrono::duration<double>(Clock::now() - last_).count();
      if (done_ || idle < kStallSeconds) continue;
      const std::string where = inside_.empty()
                                    ? "no call of the stage since the last: a loop that never ends?"
                                    : "it " + inside_;
      // "lesson 17: " first: the launcher keeps such a line as the job's last message
      fmt::print(stderr,
                 "lesson 17: {} made no progress for {:.0f} s: it ran {}, and {}. A blocking "
                 "receive whose message no stage sends waits for ever: each receive must match a "
                 "send of the neighbour, in the order the neighbour sends (README, \"Why it does "
                 "not deadlock\"). The job stops here.\n",
                 who_, idle, history_.empty() ? "no pass yet" : history_, where);
      std::fflush(stderr);
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::seconds(2));
      std::_Exit(3);
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::string who_, inside_, history_;
  Clock::time_point last_ = Clock::now();
  std::thread thread_;  // last: it starts once every other member is made
};

/// The bytes of `t`'s storage; 0 for no tensor.
std::int64_t bytes_of(const Tensor& t) {
  return t.defined() ? static_cast<std::int64_t>(t.bytes()) : 0;
}

/// The Stage the exercise's loop drives: the library's GptModel of this rank's stage, its
/// pipeline group, and a record of what the loop did. Each F(i) keeps what it left allocated on
/// the device besides its output (its received input included, which the stage takes over)
/// until B(i) runs, as pipeline::run_stage_step measures it; the most kept at once is the
/// loop's memory. A pass or a transfer the stage cannot run throws, saying why.
class CheckedStage final : public Stage {
 public:
  CheckedStage(gpt::GptModel& model, Comm& pp, Device& device, std::span<const MicroBatch> batches,
               int tp_ranks, const std::string& who)
      : model_(model),
        pp_(pp),
        device_(device),
        batches_(batches),
        tp_ranks_(tp_ranks),
        forwarded_(batches.size(), false),
        backwarded_(batches.size(), false),
        kept_(batches.size(), 0),
        watchdog_(who) {}

  int index() const override { return model_.stage().stage; }
  int stages() const override { return model_.stage().stages; }

  Tensor forward(int micro, Tensor&& x) override {
    const std::string pass = fmt::format("F({})", micro);
    check_micro(micro, pass);
    if (forwarded_[static_cast<std::size_t>(micro)]) {
      fail(fmt::format("{} ran twice: each micro-batch goes forward once in a step", pass));
    }
    if (first() && x.defined()) {
      fail(
          fmt::format("{}: the first stage embeds the micro-batch's token ids itself; pass "
                      "Tensor() as x",
                      pass));
    }
    if (!first() && !x.defined()) {
      fail(
          fmt::format("{} needs the activation stage {} sent for micro-batch {}: x = "
                      "stage.receive_activation(), then stage.forward({}, std::move(x))",
                      pass, index() - 1, micro, micro));
    }
    if (x.defined()) check_boundary(x, pass + "'s input");
    Tensor in = std::move(x);  // taken over: what F keeps of it is the model's to keep
    watchdog_.enter(inside(pass));
    const std::int64_t before = live() - bytes_of(in);
    Tensor out;
    {
      TraceScope traced(device_.trace(), fmt::format("F{}", micro), "pipeline",
                        {{"micro_batch", micro}, {"stage", index()}});
      const MicroBatch& batch = batches_[static_cast<std::size_t>(micro)];
      out = model_.forward(micro, in, batch.ids, batch.targets);
      device_.synchronize();
    }
    in = Tensor();
    const std::size_t i = static_cast<std::size_t>(micro);
    forwarded_[i] = true;
    kept_[i] = live() - before - bytes_of(out);
    kept_now_ += kept_[i];
    most_kept_ = std::max(most_kept_, kept_now_);
    most_in_flight_ = std::max(most_in_flight_, ++in_flight_);
    actions_.push_back({StageAction::Pass::forward, micro});
    watchdog_.leave(fmt::format("F{}", micro));
    return out;
  }

  Tensor backward(int micro, Tensor&& dy) override {
    const std::string pass = fmt::format("B({})", micro);
    check_micro(micro, pass);
    const std::size_t i = static_cast<std::size_t>(micro);
    if (!forwarded_[i]) {
      fail(fmt::format("{} before F({}): a micro-batch's backward needs what its forward kept",
                       pass, micro));
    }
    if (backwarded_[i]) {
      fail(fmt::format("{} ran twice: each micro-batch goes backward once in a step", pass));
    }
    if (last() && dy.defined()) {
      fail(fmt::format("{}: the last stage starts from its loss; pass Tensor() as dy", pass));
    }
    if (!last() && !dy.defined()) {
      fail(
          fmt::format("{} needs the gradient stage {} sent for micro-batch {}: dy = "
                      "stage.receive_gradient(), then stage.backward({}, std::move(dy))",
                      pass, index() + 1, micro, micro));
    }
    if (dy.defined()) check_boundary(dy, pass + "'s gradient");
    Tensor gradient = std::move(dy);
    watchdog_.enter(inside(pass));
    Tensor dx;
    {
      TraceScope traced(device_.trace(), fmt::format("B{}", micro), "pipeline",
                        {{"micro_batch", micro}, {"stage", index()}});
      dx = model_.backward(micro, gradient);
      device_.synchronize();
    }
    gradient = Tensor();
    backwarded_[i] = true;
    kept_now_ -= kept_[i];
    --in_flight_;
    actions_.push_back({StageAction::Pass::backward, micro});
    watchdog_.leave(fmt::format("B{}", micro));
    return dx;
  }

  Tensor receive_activation() override {
    if (first()) {
      fail(
          "receive_activation() on stage 0, the first: no stage before it sends activations; "
          "its forward embeds the token ids, so pass Tensor() as x");
    }
    return receive(index() - 1, "receive_activation()", "activation", activations_received_);
  }

  void send_activation(const Tensor& y) override {
    if (last()) {
      fail(
          fmt::format("send_activation() on stage {}, the last: no stage comes after it; its "
                      "forward ends in the loss and returns an empty Tensor",
                      index()));
    }
    send(y, index() + 1, "send_activation()");
  }

  Tensor receive_gradient() override {
    if (last()) {
      fail(
          fmt::format("receive_gradient() on stage {}, the last: no stage after it sends "
                      "gradients; its backward starts from the loss, so pass Tensor() as dy",
                      index()));
    }
    return receive(index() + 1, "receive_gradient()", "gradient", gradients_received_);
  }

  void send_gradient(const Tensor& dx) override {
    if (first()) {
      fail(
          "send_gradient() on stage 0, the first: no stage comes before it; its backward "
          "ends in the embedding's gradient and returns an empty Tensor");
    }
    send(dx, index() - 1, "send_gradient()");
  }

  /// After the loop returned: throws unless it ran every micro-batch's forward and backward;
  /// then waits for its sends, as run_stage_step does at the end of a step.
  void finish() {
    const auto missing = [&](const std::vector<bool>& ran, char pass) {
      std::vector<std::string> left;
      for (std::size_t i = 0; i < ran.size(); ++i) {
        if (!ran[i]) left.push_back(fmt::format("{}{}", pass, i));
      }
      return left;
    };
    for (const auto& [ran, pass] : {std::pair{&forwarded_, 'F'}, std::pair{&backwarded_, 'B'}}) {
      if (const std::vector<std::string> left = missing(*ran, pass); !left.empty()) {
        fail(
            fmt::format("the loop returned without {} (it ran {}): a step runs every "
                        "micro-batch's forward and backward, M = {}",
                        fmt::join(left, " "), pipeline::to_string(actions_), batches_.size()));
      }
    }
    for (CommRequest& r : sends_) r.wait();
    sends_.clear();
    sent_.clear();
  }

  /// The passes the loop ran, in order.
  const std::vector<StageAction>& actions() const { return actions_; }
  /// The most micro-batches whose forward had run and whose backward had not, at once.
  int most_in_flight() const { return most_in_flight_; }
  /// The most bytes the forwards in flight kept at once.
  std::int64_t most_kept_bytes() const { return most_kept_; }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw UsageError(fmt::format("stage {}: {}", index(), why));
  }

  void check_micro(int micro, const std::string& pass) const {
    if (micro < 0 || micro >= static_cast<int>(batches_.size())) {
      fail(fmt::format("{}: the micro-batches are 0..{} (M = {})", pass, batches_.size() - 1,
                       batches_.size()));
    }
  }

  void check_boundary(const Tensor& t, const std::string& what) const {
    if (t.extents() != model_.boundary_extents()) {
      fail(fmt::format("{} is {}; what passes between stages is x[m, h] = {}", what,
                       to_string(t.extents()), to_string(model_.boundary_extents())));
    }
  }

  /// What the watchdog says of a rank inside `pass`.
  std::string inside(const std::string& pass) const {
    return tp_ranks_ == 1 ? "is inside " + pass
                          : fmt::format(
                                "is inside {}, whose collectives wait for the {} ranks of "
                                "the stage's 1D group to run {} too",
                                pass, tp_ranks_, pass);
  }

  Tensor receive(int from, const std::string& call, const std::string& what, int& received) {
    ++received;
    watchdog_.enter(
        fmt::format("waits in {} for {} {} from stage {}", call, ordinal(received), what, from));
    Tensor in = device_.empty(model_.boundary_extents(), DType::f64);
    pp_.recv(in, from);
    watchdog_.leave({});
    return in;
  }

  void send(const Tensor& t, int to, const std::string& call) {
    if (!t.defined()) {
      fail(fmt::format("{} of an empty Tensor: send what forward or backward returned", call));
    }
    check_boundary(t, call + "'s tensor");
    sends_.push_back(pp_.start_send(t, to));
    sent_.push_back(t);  // kept until the send completes
  }

  std::int64_t live() const {
    return static_cast<std::int64_t>(device_.allocations().live_bytes());
  }

  gpt::GptModel& model_;
  Comm& pp_;
  Device& device_;
  std::span<const MicroBatch> batches_;
  int tp_ranks_;
  std::vector<bool> forwarded_, backwarded_;
  std::vector<std::int64_t> kept_;  // per micro-batch: what its forward left allocated
  std::int64_t kept_now_ = 0, most_kept_ = 0;
  int in_flight_ = 0, most_in_flight_ = 0;
  int activations_received_ = 0, gradients_received_ = 0;
  std::vector<StageAction> actions_;
  std::vector<CommRequest> sends_;
  std::vector<Tensor> sent_;
  Watchdog watchdog_;  // last: destroyed first, once the loop has returned
};

// ---- One case

/// What one case gave on this rank.
struct CaseRun {
  /// The exercise's: the losses of every micro-batch's tokens (on the last stage), and every
  /// gradient shard of the stage in name order, after the step.
  std::vector<double> loss, gradients;
  /// The serial run's of the same tensors.
  std::vector<double> serial_loss, serial_gradients;
  /// What the counters recorded while the loop ran.
  std::vector<CollectiveCount> counts;
  /// The most micro-batches in flight at once, and the most bytes they kept, measured.
  double in_flight = 0, kept_bytes = 0;
  /// What one micro-batch's forward keeps on this stage, measured by the library's executor.
  double kept_per_micro_batch = 0;
  /// The passes the loop ran, encoded: i + 1 for F(i), -(i + 1) for B(i).
  std::vector<double> actions;
};

/// The tensors of `model` the comparison takes, appended: with `losses`, each micro-batch's
/// losses into `loss`; the gradient shards named `names` into `gradients`.
void collect(Device& device, const gpt::GptModel& model, int micro_batches, bool losses,
             const std::vector<std::string>& names, std::vector<double>& loss,
             std::vector<double>& gradients) {
  if (losses) {
    for (int i = 0; i < micro_batches; ++i) {
      const std::vector<double>& l = model.losses(i);
      loss.insert(loss.end(), l.begin(), l.end());
    }
  }
  for (const std::string& name : names) {
    const Tensor& g = model.gradients().at(name);
    std::vector<double> values(static_cast<std::size_t>(g.numel()));
    device.download(g, values);
    gradients.insert(gradients.end(), values.begin(), values.end());
  }
}

/// Runs the case: the serial twin (the whole GPT on this rank's 1D group, the M micro-batches
/// one after another), the library's executor on this rank's stage in 1F1B's order (what one
/// micro-batch keeps), then the exercise's loop on the same stage, counted and measured.
/// Collective.
CaseRun run_case(Lesson& lesson, const Problem& problem, const Case& c) {
  Setup s = make_setup(lesson, c);
  Device& device = lesson.device();
  const int m = c.micro_batches;
  const std::span<const MicroBatch> batches(problem.batches.data(), static_cast<std::size_t>(m));
  CaseRun run;

  auto serial = build_stage(lesson, s, problem, {.stage = 0, .stages = 1});
  pipeline::run_stage_step(*serial, nullptr, device, DType::f64,
                           pipeline::stage_actions(PipelineSchedule::one_f_one_b, 1, 0, m), batches,
                           0);

  const std::vector<StageAction> actions =
      pipeline::stage_actions(PipelineSchedule::one_f_one_b, s.stage.stages, s.stage.stage, m);
  {
    auto library = build_stage(lesson, s, problem, s.stage);
    const pipeline::StageStepRecord record = pipeline::run_stage_step(
        *library, s.comms.pp.get(), device, DType::f64, actions, batches, 0);
    run.kept_per_micro_batch =
        static_cast<double>(record.kept_bytes) / pipeline::most_in_flight(actions);
  }

  auto mine = build_stage(lesson, s, problem, s.stage);
  CommCounters& counters = lesson.world().counters();
  {
    CheckedStage stage(*mine, *s.comms.pp, device, batches, c.layout.tp,
                       fmt::format("rank {} (stage {} of {}, M = {})", lesson.rank(), s.stage.stage,
                                   s.stage.stages, m));
    mine->start_step(0);
    counters.reset();
    one_f_one_b(stage, m);
    stage.finish();
    run.counts = counters.snapshot();
    run.in_flight = stage.most_in_flight();
    run.kept_bytes = static_cast<double>(stage.most_kept_bytes());
    for (const StageAction& a : stage.actions()) {
      const double code = a.micro + 1;
      run.actions.push_back(a.pass == StageAction::Pass::forward ? code : -code);
    }
  }
  mine->finish_step();

  std::vector<std::string> names;
  for (const auto& [name, grad] : mine->gradients()) names.push_back(name);
  // the losses where the pipeline computes them: on its last stage
  collect(device, *mine, m, s.stage.last(), names, run.loss, run.gradients);
  collect(device, *serial, m, s.stage.last(), names, run.serial_loss, run.serial_gradients);
  return run;
}

// ---- Rows of every rank

/// The longest of every rank's row lengths `n`. Collective.
std::int64_t longest_row(Lesson& lesson, std::size_t n) {
  Tensor t = lesson.device().empty({1}, DType::f64);
  lesson.device().fill(t, static_cast<double>(n));
  lesson.world().all_reduce(t, ReduceOp::max);
  std::vector<double> v(1);
  lesson.device().download(t, v);
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(v[0]));
}

/// Rank r holds row r of a [p, n] table.
TensorPlacement row_per_rank(const std::string& name, int p, std::int64_t n) {
  return blocked(name, {p, n}, "one row per rank", p, p, 1, [](int r) {
    return std::pair<std::int64_t, std::int64_t>{r, 0};
  });
}

/// `row` as a [1, n] tensor on the lesson's device.
Tensor row_tensor(Lesson& lesson, std::vector<double> row) {
  Tensor t = lesson.device().empty({1, static_cast<std::int64_t>(row.size())}, DType::f64);
  lesson.device().upload(row, t);
  return t;
}

/// Where world rank `rank` is in case `c`: "rank 1 (stage 1 of 2, M = 8, S = 2 x T = 1)".
std::string where(int rank, const Case& c) {
  const MeshLayout mesh = mesh_of_layout(c.layout);
  return fmt::format(
      "rank {} (stage {} of {}, M = {}{})", rank, mesh.stage_of(rank), c.layout.stages,
      c.micro_batches,
      c.layout.tp > 1 ? fmt::format(", tp rank {}", mesh.scheme_rank_of(rank)) : std::string());
}

// ---- Part "bits"

/// Prints, where the exercise's code ran, the passes each stage ran in every case, beside
/// 1F1B's where they differ. Collective.
void print_orders(Lesson& lesson, const std::vector<Case>& cases,
                  const std::vector<CaseRun>& runs) {
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const std::vector<double> all = from_every_rank(lesson, runs[k].actions);
    if (lesson.rank() != 0 || !lesson.runs_exercise()) continue;
    const MeshLayout mesh = mesh_of_layout(c.layout);
    const std::size_t n = runs[k].actions.size();
    fmt::print("your loop at {}:\n", c.text());
    for (int r = 0; r < lesson.size(); r += c.layout.tp) {
      std::vector<StageAction> ran;
      for (std::size_t a = 0; a < n; ++a) {
        const double code = all[static_cast<std::size_t>(r) * n + a];
        ran.push_back({code > 0 ? StageAction::Pass::forward : StageAction::Pass::backward,
                       static_cast<int>(std::abs(code)) - 1});
      }
      const std::vector<StageAction> want = pipeline::stage_actions(
          PipelineSchedule::one_f_one_b, c.layout.stages, mesh.stage_of(r), c.micro_batches);
      fmt::print("  stage {}: {}{}\n", mesh.stage_of(r), pipeline::to_string(ran),
                 ran == want ? "" : fmt::format("   (1F1B: {})", pipeline::to_string(want)));
    }
  }
  std::fflush(stdout);
}

/// The exercise's losses and gradients against the serial run's, every case in one row per
/// rank, exactly.
void check_bits(Lesson& lesson, const std::vector<Case>& cases, const std::vector<CaseRun>& runs) {
  const int p = lesson.size();
  std::vector<double> loss, serial_loss, gradients, serial_gradients;
  for (const CaseRun& r : runs) {
    loss.insert(loss.end(), r.loss.begin(), r.loss.end());
    serial_loss.insert(serial_loss.end(), r.serial_loss.begin(), r.serial_loss.end());
    gradients.insert(gradients.end(), r.gradients.begin(), r.gradients.end());
    serial_gradients.insert(serial_gradients.end(), r.serial_gradients.begin(),
                            r.serial_gradients.end());
  }
  const std::int64_t loss_width = longest_row(lesson, loss.size());
  const std::int64_t gradient_width = longest_row(lesson, gradients.size());
  for (std::vector<double>* row : {&loss, &serial_loss}) {
    row->resize(static_cast<std::size_t>(loss_width), 0.0);
  }
  for (std::vector<double>* row : {&gradients, &serial_gradients}) {
    row->resize(static_cast<std::size_t>(gradient_width), 0.0);
  }
  const TensorPlacement loss_place = row_per_rank("loss", p, loss_width);
  const TensorPlacement gradient_place = row_per_rank("gradients", p, gradient_width);
  lesson.expect("loss", host_array({p, loss_width}, from_every_rank(lesson, serial_loss)),
                loss_place, row_tensor(lesson, loss), exact_tolerance());
  lesson.expect("gradients",
                host_array({p, gradient_width}, from_every_rank(lesson, serial_gradients)),
                gradient_place, row_tensor(lesson, gradients), exact_tolerance());
  std::vector<std::string> listed;
  for (const Case& c : cases) listed.push_back(c.text());
  const std::string order = fmt::format("cases in the order {}", fmt::join(listed, "; "));
  lesson.explain("loss",
                 fmt::format("per rank, the loss of every token of every micro-batch on the last "
                             "stage ({}; zeros elsewhere), against the serial run's: F(i) must "
                             "run on micro-batch i's own activation, the i-th that stage s - 1 "
                             "sent (messages between two stages arrive in the order sent)",
                             order));
  lesson.explain("gradients",
                 fmt::format("per rank, every gradient shard of its stage in name order after "
                             "the step ({}), against the serial run's: the step adds each "
                             "backward's gradients in the order the backwards run, so every "
                             "stage runs B(0), B(1), ..., B(M - 1) in that order, as the serial "
                             "run does, each on the gradient stage s + 1's B(i) sent",
                             order));
  lesson.report(
      "your 1F1B loop against the serial run of the same micro-batches: every loss and "
      "gradient, bit for bit (exact)");
}

// ---- Part "transfers"

/// [sends to stage s - 1, sends to stage s + 1, receives from stage s - 1, receives from stage
/// s + 1] on the group "pp" in `counts`, for a rank of stage `stage`.
std::vector<double> transfer_pattern(const std::vector<CollectiveCount>& counts, int stage) {
  std::vector<double> pattern(4, 0.0);
  for (const CollectiveCount& c : counts) {
    if (c.group != kPipelineGroup) continue;
    const bool before = c.root == stage - 1;
    if (c.collective == Collective::send) pattern[before ? 0 : 1] += static_cast<double>(c.calls);
    if (c.collective == Collective::recv) pattern[before ? 2 : 3] += static_cast<double>(c.calls);
  }
  return pattern;
}

/// The first few entries of `got` (every rank's row of `width` entries, `per_case` a case)
/// that differ from `want`, each as `say` words it; "" when none do.
std::string first_wrong(const std::vector<Case>& cases, int p, std::size_t per_case,
                        const std::vector<double>& got, const std::vector<double>& want,
                        const std::function<std::string(int, const Case&, std::span<const double>,
                                                        std::span<const double>)>& say) {
  const std::size_t width = per_case * cases.size();
  std::vector<std::string> wrong;
  for (int r = 0; r < p; ++r) {
    for (std::size_t k = 0; k < cases.size(); ++k) {
      const std::size_t at = static_cast<std::size_t>(r) * width + k * per_case;
      const std::span<const double> mine(got.data() + at, per_case);
      const std::span<const double> right(want.data() + at, per_case);
      if (!std::equal(mine.begin(), mine.end(), right.begin())) {
        wrong.push_back(say(r, cases[k], mine, right));
      }
    }
  }
  constexpr std::size_t kShown = 3;  // one cause usually explains the rest
  const std::string more =
      wrong.size() > kShown ? fmt::format("; and {} more", wrong.size() - kShown) : "";
  if (wrong.size() > kShown) wrong.resize(kShown);
  return wrong.empty() ? std::string() : fmt::format("{}{}", fmt::join(wrong, "; "), more);
}

void check_transfers(Lesson& lesson, const std::vector<Case>& cases,
                     const std::vector<CaseRun>& runs) {
  const int p = lesson.size();
  std::vector<double> got, want;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const MeshLayout mesh = mesh_of_layout(c.layout);
    const int stage = mesh.stage_of(lesson.rank());
    const std::vector<double> pattern = transfer_pattern(lesson.counted(runs[k].counts), stage);
    got.insert(got.end(), pattern.begin(), pattern.end());
  }
  for (int r = 0; r < p; ++r) {
    for (const Case& c : cases) {
      const int stage = mesh_of_layout(c.layout).stage_of(r);
      const double m = c.micro_batches;
      const double before = stage == 0 ? 0 : m, after = stage == c.layout.stages - 1 ? 0 : m;
      want.insert(want.end(), {before, after, before, after});
    }
  }
  const auto width = static_cast<std::int64_t>(4 * cases.size());
  const TensorPlacement place = row_per_rank("transfers", p, width);
  const std::vector<double>& yours = lesson.expect_measured(
      "transfers", host_array({p, width}, want), place, row_tensor(lesson, got), exact_tolerance());
  const std::string wrong = first_wrong(
      cases, p, 4, from_every_rank(lesson, yours), want,
      [](int r, const Case& c, std::span<const double> mine, std::span<const double> right) {
        return fmt::format("{}: [{}], 1F1B [{}]", where(r, c), fmt::join(mine, ", "),
                           fmt::join(right, ", "));
      });
  lesson.explain("transfers",
                 fmt::format("per rank and case, [sends to stage s - 1, sends to stage s + 1, "
                             "receives from stage s - 1, receives from stage s + 1] on the group "
                             "\"pp\": per micro-batch one activation forward and one gradient "
                             "back between each pair of neighbours, so M of each, and none past "
                             "the ends (stage 0 has no stage before it, stage S - 1 none after "
                             "it){}",
                             wrong.empty() ? "" : "; " + wrong));
  lesson.report("your loop's transfers on the group \"pp\", counted (exact)");
}

// ---- Part "memory"

/// Why a stage kept `got` micro-batches at its peak where 1F1B keeps `want`.
std::string memory_diagnosis(const Case& c, int stage, double got, double want) {
  const int m = c.micro_batches, warmup = std::min(c.layout.stages - stage - 1, m);
  if (got == m) {
    return fmt::format(
        "all M = {} forwards ran before its first backward, as GPipe runs them; "
        "1F1B runs min(S - s - 1, M) = {} first, then one forward and one "
        "backward in turn",
        m, warmup);
  }
  if (got < want) {
    return fmt::format(
        "its first backward came after fewer than min(S - s - 1, M) + 1 = {} "
        "forwards: the pipeline never fills, and stage {} idles while "
        "micro-batch 0 goes to the last stage and back",
        warmup + 1, stage);
  }
  return fmt::format(
      "more than min(S - s - 1, M) = {} forwards ran before its first backward, "
      "or two forwards in a row after it",
      warmup);
}

void check_memory(Lesson& lesson, const std::vector<Case>& cases,
                  const std::vector<CaseRun>& runs) {
  const int p = lesson.size();
  std::vector<double> got, mine_want;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const int stage = mesh_of_layout(c.layout).stage_of(lesson.rank());
    const double in_flight = one_f_one_b_in_flight(c.layout.stages, stage, c.micro_batches);
    got.insert(got.end(), {runs[k].in_flight, runs[k].kept_bytes});
    mine_want.insert(mine_want.end(), {in_flight, in_flight * runs[k].kept_per_micro_batch});
  }
  const std::vector<double> want = from_every_rank(lesson, mine_want);
  const auto width = static_cast<std::int64_t>(2 * cases.size());
  const TensorPlacement place = row_per_rank("kept", p, width);
  const std::vector<double>& yours = lesson.expect("kept", host_array({p, width}, want), place,
                                                   row_tensor(lesson, got), exact_tolerance());
  const std::string wrong = first_wrong(
      cases, p, 2, from_every_rank(lesson, yours), want,
      [](int r, const Case& c, std::span<const double> mine, std::span<const double> right) {
        const int stage = mesh_of_layout(c.layout).stage_of(r);
        return fmt::format(
            "{} kept {:g} micro-batch{} ({:g} bytes) at once where 1F1B keeps "
            "min(S - s, M) = {:g} ({:g} bytes): {}",
            where(r, c), mine[0], mine[0] == 1 ? "" : "es", mine[1], right[0], right[1],
            mine[0] == right[0] ? std::string("the same count, other bytes: did the loop keep a "
                                              "copy of what it passed to forward?")
                                : memory_diagnosis(c, stage, mine[0], right[0]));
      });
  lesson.explain("kept", fmt::format("per rank and case, [the most micro-batches whose forward "
                                     "had run and whose backward had not, the bytes their "
                                     "forwards kept on the device at that peak]{}",
                                     wrong.empty() ? "" : "; " + wrong));
  lesson.report(
      "the micro-batches your loop kept for backward at once, measured on the device "
      "(exact)");
}

// ---- The lesson

/// Every rank's place in each layout the check runs, and what it holds.
void print_layouts(const Lesson& lesson) {
  if (!lesson.speaks()) return;
  const BlockShape& b = kShape.block;
  fmt::print(
      "each micro-batch: b = {} sequences of s = {} tokens (m = {}), h = {}, {} heads, "
      "V = {}; the GPT has L = {} blocks; M = {} and {} micro-batches a step\n",
      b.b, b.s, b.tokens(), b.h, b.heads, kShape.vocab, kShape.layers, kMicroBatches[0],
      kMicroBatches[1]);
  for (const Layout& layout : layouts_for(lesson.size())) {
    const MeshLayout mesh = mesh_of_layout(layout);
    const auto scheme = make_scheme("1d");
    const auto gpt_layout = gpt::make_gpt_layout("1d", SchemeOptions{});
    const std::vector<TensorPlacement> places =
        gpt::gpt_parameter_placements(*scheme, *gpt_layout, layout.tp, kShape);
    const Extents x =
        find_placement(scheme->placements(layout.tp, b, Workload::block), "x").local_extents(0);
    const std::int64_t blocks = kShape.layers / layout.stages;
    fmt::print(
        "S = {} stages x T = {} (world rank = stage x T + tp rank; L/S = {} block{} a "
        "stage{}):\n",
        layout.stages, layout.tp, blocks, blocks == 1 ? "" : "s",
        layout.tp > 1 ? ", 1D over the T ranks of each stage" : "");
    for (int r = 0; r < lesson.size(); ++r) {
      const gpt::GptStage stage{.stage = mesh.stage_of(r), .stages = layout.stages};
      const int j = mesh.scheme_rank_of(r);
      const auto shard = [&](const std::string& name, const char* label) {
        return fmt::format("{} {}", label,
                           to_string(find_placement(places, name).local_extents(j)));
      };
      std::vector<std::string> held;
      if (stage.first()) held.push_back(shard("embedding", "E[V_T, h]"));
      const std::int64_t l0 = stage.first_layer(kShape), l1 = l0 + stage.layers(kShape) - 1;
      held.push_back(
          fmt::format("{}, each with {}, {}, {}",
                      l0 == l1 ? fmt::format("block {}", l0) : fmt::format("blocks {}..{}", l0, l1),
                      shard(gpt::layer_parameter("wq", l0), "Wq[h, h_T]"),
                      shard(gpt::layer_parameter("w1", l0), "W1[h, 4h_T]"),
                      shard(gpt::layer_parameter("w2", l0), "W2[4h_T, h]")));
      if (stage.last()) held.push_back(shard("w_head", "W_head[h, V_T]") + " and the loss");
      std::vector<std::string> passes;
      if (!stage.first()) {
        passes.push_back(
            fmt::format("x[m, h] {} from rank {}, its gradient back", to_string(x), r - layout.tp));
      }
      if (!stage.last()) {
        passes.push_back(fmt::format("x[m, h] {} to rank {}, its gradient from it", to_string(x),
                                     r + layout.tp));
      }
      fmt::print("  rank {}: stage {}, tp rank {}: {}; {}\n", r, stage.stage, j,
                 fmt::join(held, ", "), fmt::join(passes, "; "));
    }
  }
  std::fflush(stdout);
}

void run(Lesson& lesson) {
  const int p = lesson.size();
  require_world_size(lesson, p == 2 || p == 4,
                     "lesson 17 cuts a GPT of 4 blocks into S = 2 stages of one rank (p = 2), "
                     "and into S = 4 stages of one rank or S = 2 stages of a 1D group of 2 "
                     "(p = 4)",
                     {2, 4});
  const Problem problem = make_problem();
  const std::vector<Case> cases = cases_for(p);
  print_layouts(lesson);
  std::vector<CaseRun> runs;
  lesson.part("bits", [&] {
    for (const Case& c : cases) runs.push_back(run_case(lesson, problem, c));
    print_orders(lesson, cases, runs);
    check_bits(lesson, cases, runs);
  });
  const std::string why = "counted only for a loop that gives the serial run's bits";
  lesson.part("transfers", [&] {
    lesson.require_part("bits", "the transfers are " + why);
    check_transfers(lesson, cases, runs);
  });
  lesson.part("memory", [&] {
    lesson.require_part("bits", "the memory is " + why);
    check_memory(lesson, cases, runs);
  });
}

}  // namespace
}  // namespace tplab::lessons::pipeline_stage

int main() {
  return tplab::lessons::run_lesson("lesson 17", tplab::lessons::pipeline_stage::run);
}
