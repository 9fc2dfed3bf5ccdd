#include "lesson.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "harness.hpp"
#include "job_result.hpp"
#include "lesson_environment.hpp"
#include "report.hpp"
#include "safe_output.hpp"
#include "shard_location.hpp"
#include "trace/trace_recorder.hpp"
#include "trace_file.hpp"

namespace tplab::lessons {

Tolerance exact_tolerance() {
  return verify::tolerance_for(DType::f64, /*exact=*/true);
}

namespace {

/// The run's seed (TPLAB_LESSON_SEED), read once by run_lesson; 0 keeps the shipped inputs.
std::uint64_t run_seed = 0;

/// A 64-bit mix (SplitMix64's finaliser): nearby seeds give unrelated draws.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::uint64_t input_seed(std::uint64_t base) {
  return run_seed == 0 ? base : mix(base ^ mix(run_seed));
}

std::string verdict_name(PartVerdict verdict) {
  switch (verdict) {
    case PartVerdict::pass:
      return "pass";
    case PartVerdict::wrong:
      return "wrong";
    case PartVerdict::not_started:
      return "not_started";
  }
  return "wrong";
}

namespace {

/// Thrown by require_part(): the part needs an earlier one that did not pass.
class NeedsEarlierPart : public std::runtime_error {
 public:
  explicit NeedsEarlierPart(const std::string& why) : std::runtime_error(why) {}
};

/// How one rank left a part, in the order of severity the agreement takes the largest of.
enum RankOutcome { ran = 0, stopped = 1, threw = 2 };

/// A TODO's place, "file:line", with the file as the learner knows it: the build compiles an
/// exercise through a link (lessons/CMakeLists.txt), which is followed here.
std::string todo_in_source(const std::string& where) {
  const std::size_t colon = where.rfind(':');
  if (colon == std::string::npos) return where;
  std::error_code error;
  const std::filesystem::path file = std::filesystem::canonical(where.substr(0, colon), error);
  return error ? where : file.string() + where.substr(colon);
}

/// An event of the exercise's transcript, its other fields to fill in.
TranscriptEvent event(TranscriptEvent::Kind kind, const std::string& name) {
  TranscriptEvent e;
  e.kind = kind;
  e.name = name;
  return e;
}

/// How long a rank that left a part early (a TODO, an error) waits for the others to leave it
/// too. A rank still inside the part's collectives never arrives; then the job must end.
constexpr double kAgreementSeconds = 30;

}  // namespace

/// The run's own duplicate of the world's communicator: the verdicts are agreed on it with
/// non-blocking collectives, never matched against a collective a part left unfinished, and
/// never seen by the communication counters the lessons read.
struct Lesson::Agreement {
  MPI_Comm comm = MPI_COMM_NULL;
  explicit Agreement(MPI_Comm world) { MPI_Comm_dup(world, &comm); }
  ~Agreement() { MPI_Comm_free(&comm); }
  Agreement(const Agreement&) = delete;
  Agreement& operator=(const Agreement&) = delete;

  /// Element-wise maximum of `values` over the world. A rank with `deadline` waits at most
  /// kAgreementSeconds, and returns false when the others did not arrive in that time.
  bool max(std::vector<int>& values, bool deadline) {
    std::vector<int> result(values.size());
    MPI_Request request;
    MPI_Iallreduce(values.data(), result.data(), static_cast<int>(values.size()), MPI_INT, MPI_MAX,
                   comm, &request);
    const auto start = std::chrono::steady_clock::now();
    for (int done = 0;;) {
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done != 0) break;
      const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
      if (deadline && waited.count() > kAgreementSeconds) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    values = result;
    return true;
  }

  /// `text` from world rank `root` to every rank.
  void broadcast(std::string& text, int root) {
    int length = static_cast<int>(text.size());
    MPI_Bcast(&length, 1, MPI_INT, root, comm);
    text.resize(static_cast<std::size_t>(length));
    MPI_Bcast(text.data(), length, MPI_CHAR, root, comm);
  }
};

Lesson::Lesson(Comm& world, Device& device, LessonRole role, const std::string& transcripts)
    : world_(world),
      device_(device),
      role_(role),
      agreement_(std::make_shared<Agreement>(MPI_COMM_WORLD)) {
  own_ = {rank(), size(), run_seed, {}};
  if (role_ != LessonRole::judge) return;
  // What this rank of the exercise's job wrote. None (an exercise that exited before the end of
  // the lesson, or wrote something else in its place) leaves every part of this rank unproduced.
  const std::filesystem::path file =
      std::filesystem::path(transcripts) / transcript_file_name(rank());
  std::optional<std::string> text;
  try {
    text = app::read_own_file(file, "the exercise's transcript");
  } catch (const std::exception& e) {
    no_transcript_ = e.what();
  }
  if (!text && no_transcript_.empty()) {
    no_transcript_ = fmt::format(
        "rank {} of the exercise's job ended without finishing the lesson (it left no "
        "transcript: an exercise must return from its functions, never exit)",
        rank());
  }
  if (!text) return;
  std::string why;
  const nlohmann::json document = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  exercise_ = parse_transcript(document, why);
  if (exercise_ &&
      (exercise_->rank != rank() || exercise_->size != size() || exercise_->seed != run_seed)) {
    why = "it was written for another run";
    exercise_.reset();
  }
  if (!exercise_) {
    no_transcript_ = fmt::format(
        "rank {} of the exercise's job left a transcript the judge cannot use: {}", rank(), why);
  }
}

void Lesson::print_shards(const std::vector<ShardNote>& notes) const {
  if (!speaks()) return;
  fmt::print("what each rank holds (p = {} ranks; index ranges inclusive):\n", size());
  for (const ShardNote& n : notes) {
    const TensorPlacement& place = *n.placement;
    const auto line = [&](const std::string& who, const BlockRange& block) {
      fmt::print("  {}: {}{} = {} of {}\n", who, n.label, n.notation,
                 block_ranges(block, place.global), to_string(place.global));
    };
    if (block_holders(place, place.blocks.at(0)).size() == place.blocks.size()) {
      line(size() == 1 ? "rank 0" : "every rank", place.blocks.at(0));
      continue;
    }
    for (int r = 0; r < size(); ++r) line(fmt::format("rank {}", r), place.blocks.at(r));
  }
  std::fflush(stdout);
}

std::string Lesson::trace_path() const {
  const char* path = std::getenv(kTraceVariable);
  return path != nullptr && device_.trace() != nullptr ? std::string(path) : std::string();
}

PartVerdict Lesson::part(const std::string& name, const std::function<void()>& body) {
  check(current_part_.empty(), "Lesson::part: parts do not nest");
  current_part_ = name;
  const std::size_t first_report = reports_.size();
  if (role_ == LessonRole::exercise)
    own_.events.push_back(event(TranscriptEvent::Kind::part, name));
  if (role_ == LessonRole::judge) begin_exercise_part(name);
  RankOutcome outcome = ran;
  PartResult result{name, PartVerdict::pass, {}, {}};
  try {
    body();
  } catch (const NotStarted& e) {
    outcome = stopped;
    result.todo = todo_in_source(e.what());
  } catch (const NeedsEarlierPart& e) {
    outcome = stopped;
    result.message = e.what();
  } catch (const std::exception& e) {
    outcome = threw;
    result.message = fmt::format("rank {}: {}", rank(), e.what());
  }
  clear_queue();
  current_part_.clear();
  if (role_ == LessonRole::judge && outcome != threw) {
    // The part ends as the exercise's run of it ended, where that was earlier than the check.
    end_exercise_part();
    if (stopped_) {
      const RankOutcome theirs = stopped_->outcome == "threw" ? threw : stopped;
      if (theirs > outcome) {
        outcome = theirs;
        result.todo = stopped_->todo;
        result.message = stopped_->message;
      }
    }
  }

  // [worst outcome, p - (lowest rank that threw), p - (lowest rank that met a TODO)]: one
  // agreement tells every rank how the part ended and whose words to keep.
  std::vector<int> agreed = {outcome, outcome == threw ? size() - rank() : 0,
                             !result.todo.empty() ? size() - rank() : 0};
  if (!agreement_->max(agreed, outcome != ran)) {
    // The other ranks are still inside the part, in a collective this rank will never join.
    const std::string why = outcome == threw ? result.message
                            : result.todo.empty()
                                ? fmt::format("rank {}: {}", rank(), result.message)
                                : fmt::format("rank {}: met the TODO at {}", rank(), result.todo);
    fmt::print(stderr,
               "{}\nrank {} left part '{}' after {:g} s while other ranks went on in it; a "
               "collective that only some ranks reach never ends, so the job stops here\n",
               why, rank(), name, kAgreementSeconds);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  const int worst = agreed[0];
  int thrower = -1;
  if (worst == threw) {
    thrower = size() - agreed[1];
    if (rank() == thrower && role_ != LessonRole::judge) {
      fmt::print(stderr, "{}\n", result.message);
      std::fflush(stderr);
    }
    agreement_->broadcast(result.message, thrower);
  } else if (worst == stopped && agreed[2] > 0) {
    // Every rank keeps the TODO of the lowest rank that met one (in SPMD all meet the same).
    agreement_->broadcast(result.todo, size() - agreed[2]);
  }
  if (role_ == LessonRole::exercise) {
    // The exercise's job judges nothing: a part that ran counts as passed only for
    // require_part, which needs the earlier part's outputs, not their verdict.
    TranscriptEvent& end = own_.events.emplace_back(event(TranscriptEvent::Kind::part_end, name));
    end.outcome = worst == threw ? "threw" : worst == stopped ? "stopped" : "ran";
    end.todo = result.todo;
    end.message = result.message;
    result.verdict = worst == threw     ? PartVerdict::wrong
                     : worst == stopped ? PartVerdict::not_started
                                        : PartVerdict::pass;
    parts_.push_back(result);
    return result.verdict;
  }
  bool reports_pass = true;
  for (std::size_t i = first_report; i < reports_.size(); ++i) {
    const CheckedReport& r = reports_[i];
    for (std::size_t k = 0; k < r.checks.size(); ++k) {
      reports_pass = reports_pass && (r.checks[k].pass || !r.produced[k]);
    }
  }
  result.verdict = worst == threw || !reports_pass ? PartVerdict::wrong
                   : worst == stopped              ? PartVerdict::not_started
                                                   : PartVerdict::pass;
  if (rank() == 0) {
    std::string said = result.verdict == PartVerdict::pass    ? "PASS"
                       : result.verdict == PartVerdict::wrong ? "WRONG"
                                                              : "not started";
    if (!result.todo.empty()) said += " (TODO at " + result.todo + ")";
    if (thrower >= 0 && role_ == LessonRole::alone) {
      said += fmt::format(" (stopped by the error on rank {}, on stderr)", thrower);
    } else if (!result.message.empty()) {
      said += ": " + result.message;
    }
    fmt::print("\npart '{}': {}\n", name, said);
    std::fflush(stdout);
  }
  parts_.push_back(result);
  return result.verdict;
}

void Lesson::begin_exercise_part(const std::string& name) {
  stopped_.reset();
  exercise_end_.reset();
  if (!exercise_) {
    stopped_ = Stop{"threw", {}, no_transcript_};
    return;
  }
  // The exercise's job may have run a part the judge skips (one that needs an earlier part
  // the judge found wrong): its events are passed over.
  const std::vector<TranscriptEvent>& events = exercise_->events;
  while (cursor_ < events.size() &&
         !(events[cursor_].kind == TranscriptEvent::Kind::part && events[cursor_].name == name)) {
    ++cursor_;
  }
  if (cursor_ == events.size()) {
    stopped_ =
        Stop{"threw",
             {},
             fmt::format("rank {}: the exercise's transcript has no part '{}'", rank(), name)};
    return;
  }
  ++cursor_;
  for (std::size_t i = cursor_; i < events.size(); ++i) {
    if (events[i].kind == TranscriptEvent::Kind::part_end) {
      exercise_end_ = events[i];
      return;
    }
  }
  stopped_ =
      Stop{"threw",
           {},
           fmt::format("rank {}: the exercise's transcript of part '{}' has no end", rank(), name)};
}

void Lesson::end_exercise_part() {
  if (stopped_ || !exercise_end_) return;
  // Everything the check took, the exercise gave: its run ends the part as the check did,
  // unless it stopped after the last thing taken (a TODO after the last report).
  if (exercise_end_->outcome != "ran") {
    stopped_ = Stop{exercise_end_->outcome, exercise_end_->todo, exercise_end_->message};
  }
}

const TranscriptEvent* Lesson::next_event(TranscriptEvent::Kind kind, const std::string& what) {
  if (stopped_) return nullptr;
  const TranscriptEvent& event = exercise_->events.at(cursor_);
  if (event.kind == TranscriptEvent::Kind::part_end) {
    // The exercise's part ended before the check had `what`: as the exercise's job saw it end.
    stopped_ = event.outcome == "ran"
                   ? Stop{"threw",
                          {},
                          fmt::format("rank {}: the exercise's run of part '{}' ended without {}",
                                      rank(), current_part_, what)}
                   : Stop{event.outcome, event.todo, event.message};
    return nullptr;
  }
  ++cursor_;
  if (event.kind != kind || (kind == TranscriptEvent::Kind::tensor && event.name != what)) {
    stopped_ = Stop{"threw",
                    {},
                    fmt::format("rank {}: the exercise's transcript has a {} '{}' where the check "
                                "takes {}",
                                rank(), event_kind_name(event.kind), event.name, what)};
    return nullptr;
  }
  return &event;
}

void Lesson::require_part(const std::string& earlier, const std::string& why) {
  const PartVerdict verdict = verdict_of(earlier);
  if (verdict == PartVerdict::pass) return;
  throw NeedsEarlierPart(fmt::format("{}, and {} is {}", why, earlier,
                                     verdict == PartVerdict::wrong ? "wrong" : "not started"));
}

PartVerdict Lesson::verdict_of(const std::string& name) const {
  for (const PartResult& p : parts_) {
    if (p.name == name) return p.verdict;
  }
  throw InternalError(fmt::format("no part '{}' has run yet", name));
}

Tensor Lesson::shard(const HostArray& global, const TensorPlacement& placement) {
  return verify::upload_shard(device_, global, placement, rank(), DType::f64);
}

const std::vector<double>& Lesson::expect(const std::string& name, const HostArray& reference,
                                          const TensorPlacement& placement, const Tensor& got,
                                          const Tolerance& tolerance) {
  return queue(name, reference, placement, got, tolerance, /*transcribed=*/true);
}

const std::vector<double>& Lesson::expect_measured(const std::string& name,
                                                   const HostArray& reference,
                                                   const TensorPlacement& placement,
                                                   const Tensor& got, const Tolerance& tolerance) {
  return queue(name, reference, placement, got, tolerance, /*transcribed=*/false);
}

const std::vector<double>& Lesson::queue(const std::string& name, const HostArray& reference,
                                         const TensorPlacement& placement, const Tensor& got,
                                         const Tolerance& tolerance, bool transcribed) {
  const Extents wanted = placement.local_extents(rank());
  const BlockRange& block = placement.blocks.at(static_cast<std::size_t>(rank()));
  const auto wrong_extents = [&](const Extents& extents) {
    return fmt::format("{} on rank {} is {}, but this rank should hold {}: {} of {}", name, rank(),
                       to_string(extents), to_string(wanted), block_ranges(block, placement.global),
                       to_string(placement.global));
  };
  std::vector<double> values(static_cast<std::size_t>(got.numel()));
  device_.download(got, values);
  if (role_ == LessonRole::exercise && transcribed) {
    TranscriptEvent& e = own_.events.emplace_back(event(TranscriptEvent::Kind::tensor, name));
    e.extents = got.extents();
    e.values = values;
  }
  int status = 0;  // produced
  std::string status_text;
  if (role_ == LessonRole::judge && transcribed) {
    // The exercise's tensor in place of the solution's; the solution's stands in, unjudged,
    // for one the exercise did not produce, so that every rank queues the same tensors.
    if (const TranscriptEvent* e = next_event(TranscriptEvent::Kind::tensor, name)) {
      if (e->extents == wanted && e->values.size() == values.size()) {
        values = e->values;
      } else {
        status = 2;
        status_text = wrong_extents(e->extents);
      }
    } else {
      status = 1;
    }
  } else if (role_ == LessonRole::judge && stopped_) {
    // A measure of an exercise whose part already ended (counted() then gave the solution's
    // counts): nothing of the exercise's to judge.
    status = 1;
  } else if (got.extents() != wanted) {
    throw UsageError(wrong_extents(got.extents()));
  }
  names_.push_back(name);
  references_.push_back(reference);
  placements_.push_back(&placement);
  got_.push_back(std::move(values));
  tolerances_.push_back(tolerance);
  statuses_.push_back(status);
  status_texts_.push_back(std::move(status_text));
  return got_.back();
}

std::vector<CollectiveCount> Lesson::counted(std::vector<CollectiveCount> measured) {
  if (role_ == LessonRole::exercise) {
    own_.events.emplace_back(event(TranscriptEvent::Kind::counts, "collectives")).counts = measured;
  }
  if (role_ == LessonRole::judge) {
    if (const TranscriptEvent* e = next_event(TranscriptEvent::Kind::counts, "its collectives")) {
      return e->counts;
    }
  }
  return measured;
}

void Lesson::explain(const std::string& name, const std::string& text) {
  notes_.emplace_back(name, text);
}

bool Lesson::report(const std::string& title) {
  check(!current_part_.empty(), "Lesson::report belongs inside a part");
  if (role_ == LessonRole::exercise) {
    own_.events.push_back(event(TranscriptEvent::Kind::report, title));
    clear_queue();
    return true;
  }
  if (role_ == LessonRole::judge)
    next_event(TranscriptEvent::Kind::report, "the report '" + title + "'");
  std::vector<verify::ShardToCheck> shards;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    shards.push_back({names_[i], &references_[i], placements_[i], got_[i], tolerances_[i],
                      verify::rms(references_[i].values)});
    // A gradient that is zero in exact arithmetic (d_bk) is round-off on both sides: as verify
    // does, its atol comes from its sibling's scale and no relative L2 bound applies.
    const verify::ZeroGradient* zero = verify::zero_gradient(names_[i]);
    if (zero == nullptr || tolerances_[i].atol_scale == 0) continue;
    for (std::size_t j = 0; j < names_.size(); ++j) {
      if (names_[j] != zero->scale_from) continue;
      shards.back().scale = verify::rms(references_[j].values);
      shards.back().tolerance.max_rel_l2 = INFINITY;
    }
  }
  std::vector<TensorCheck> checks = verify::compare_shards(world_, shards);
  // Which tensors the exercise produced on every rank, and on the lowest rank whose tensor had
  // the wrong extents, why.
  std::vector<int> agreed = statuses_;
  for (std::size_t i = 0; i < statuses_.size(); ++i) {
    agreed.push_back(statuses_[i] == 2 ? size() - rank() : 0);
  }
  agreement_->max(agreed, false);
  std::vector<bool> produced(checks.size(), true);
  std::vector<TensorCheck> judged;  // the table: what the exercise produced, in its extents
  std::vector<std::pair<std::string, std::string>> unjudged;  // the others, and why
  // Whose shards are wrong: each rank checks its own block alone, as compare_shards checks the
  // whole tensor (check_shard, then finish on that block's sums), and one maximum over the
  // agreement's communicator, which the counters the checks read never see, tells every rank
  // the findings of all: wrong[i * p + r] is 1 when rank r's shard of tensor i is wrong.
  const int p = size();
  std::vector<int> wrong(shards.size() * static_cast<std::size_t>(p), 0);
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const verify::ShardToCheck& s = shards[i];
    TensorCheck mine = verify::check_shard(s.name, *s.reference,
                                           s.placement->blocks.at(static_cast<std::size_t>(rank())),
                                           s.got, s.tolerance, s.scale);
    verify::finish(mine);
    wrong[i * static_cast<std::size_t>(p) + static_cast<std::size_t>(rank())] = mine.pass ? 0 : 1;
  }
  agreement_->max(wrong, /*deadline=*/false);
  std::vector<RankSplit> ranks(checks.size());
  bool pass = true;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    TensorCheck& c = checks[i];
    if (agreed[i] != 0) {
      // The numbers are the solution's stand-in's: none of them describes the exercise.
      std::string text =
          agreed[i] == 1 ? "not produced: " + not_produced_reason() : status_texts_[i];
      if (agreed[i] == 2) agreement_->broadcast(text, size() - agreed[checks.size() + i]);
      produced[i] = agreed[i] == 2;
      TensorCheck blank;
      blank.name = c.name;
      blank.global = c.global;
      blank.max_abs = blank.rel_l2 = blank.share = blank.worst_got = blank.worst_ref = NAN;
      c = blank;
      notes_.emplace_back(c.name, text);
      unjudged.emplace_back(c.name, text);
    } else {
      const std::int64_t index = c.nonfinite > 0 ? c.first_nonfinite : c.worst_index;
      if (!c.pass && index >= 0) c.worst_where = element_location(c.name, *placements_[i], index);
      judged.push_back(c);
    }
    pass = pass && c.pass;
    if (agreed[i] != 0) continue;
    // A tensor that passed is right everywhere, even where its shard's own L2 error, over
    // fewer elements, is past the bound that holds for the whole tensor.
    for (int r = 0; r < p; ++r) {
      const bool bad =
          !c.pass && wrong[i * static_cast<std::size_t>(p) + static_cast<std::size_t>(r)] != 0;
      (bad ? ranks[i].wrong : ranks[i].right).push_back(r);
    }
  }
  if (rank() == 0) {
    fmt::print("\n{} (p = {} ranks)\n", title, size());
    if (!judged.empty()) verify::print_tensor_table(judged, stdout);
    for (const auto& [tensor, text] : unjudged) {
      fmt::print("  {}: {}{}\n", tensor, text.starts_with("not produced") ? "" : "FAIL, ", text);
    }
    for (std::size_t i = 0; i < checks.size(); ++i) {
      if (const std::string split = describe_rank_split(checks[i].name, *placements_[i], ranks[i]);
          !split.empty()) {
        fmt::print("  {}\n", split);
      }
    }
    for (const auto& [tensor, text] : notes_) {
      for (const TensorCheck& c : judged) {
        if (c.name == tensor && !c.pass) fmt::print("  {}: {}\n", tensor, text);
      }
    }
    std::fflush(stdout);
  }
  reports_.push_back(
      {title, current_part_, std::move(checks), std::move(produced), notes_, std::move(ranks)});
  clear_queue();
  return pass;
}

std::string Lesson::not_produced_reason() const {
  if (!stopped_) return "the exercise's part ended early on another rank";
  if (!stopped_->todo.empty()) return "the part is not started (TODO at " + stopped_->todo + ")";
  return stopped_->message;
}

bool Lesson::on_every_rank(bool mine) {
  std::vector<int> disagree = {mine ? 0 : 1};
  agreement_->max(disagree, false);
  return disagree[0] == 0;
}

void Lesson::clear_queue() {
  names_.clear();
  references_.clear();
  placements_.clear();
  got_.clear();
  tolerances_.clear();
  statuses_.clear();
  status_texts_.clear();
  notes_.clear();
}

void require_world_size(const Lesson& lesson, bool ok, const std::string& what,
                        const std::vector<int>& sizes) {
  if (ok) return;
  throw UsageError(fmt::format("{}, so it runs on {} ranks; got {}", what, fmt::join(sizes, ", "),
                               lesson.size()));
}

std::string lesson_verdict(const std::vector<PartResult>& parts) {
  bool all_pass = true, any_wrong = false, any_started = false;
  for (const PartResult& p : parts) {
    all_pass = all_pass && p.verdict == PartVerdict::pass;
    any_wrong = any_wrong || p.verdict == PartVerdict::wrong;
    any_started = any_started || p.verdict == PartVerdict::pass;
  }
  if (any_wrong) return "wrong";
  if (all_pass && !parts.empty()) return "pass";
  return any_started ? "in_progress" : "not_started";
}

namespace {

/// A number of a check as JSON: null where it is NaN or Inf (JSON has neither).
nlohmann::json finite_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

/// A string as JSON: null where it is empty.
nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace

nlohmann::json verdict_json(const std::vector<PartResult>& parts,
                            const std::vector<CheckedReport>& reports) {
  nlohmann::json part_list = nlohmann::json::array();
  std::string first_todo;
  for (const PartResult& p : parts) {
    part_list.push_back({{"name", p.name},
                         {"verdict", verdict_name(p.verdict)},
                         {"todo", text_or_null(p.todo)},
                         {"message", text_or_null(p.message)}});
    if (first_todo.empty()) first_todo = p.todo;
  }
  nlohmann::json report_list = nlohmann::json::array();
  nlohmann::json first_failed = nullptr;
  for (const CheckedReport& r : reports) {
    nlohmann::json checks = nlohmann::json::array();
    for (std::size_t k = 0; k < r.checks.size(); ++k) {
      const TensorCheck& c = r.checks[k];
      const RankSplit& split = r.ranks.at(k);
      std::string note;
      for (const auto& [tensor, text] : r.notes) {
        if (tensor == c.name && !c.pass) note = text;
      }
      checks.push_back({{"name", c.name},
                        {"pass", c.pass},
                        {"max_abs", finite_or_null(c.max_abs)},
                        {"rel_l2", finite_or_null(c.rel_l2)},
                        {"tolerance_used", finite_or_null(c.share)},
                        {"worst_index", c.worst_index},
                        {"worst_got", finite_or_null(c.worst_got)},
                        {"worst_ref", finite_or_null(c.worst_ref)},
                        {"where", text_or_null(c.worst_where)},
                        {"note", text_or_null(note)},
                        {"nonfinite", c.nonfinite},
                        {"produced", r.produced.at(k)},
                        {"replicas_identical", c.replicas_differ.empty()},
                        {"replicas_differ", c.replicas_differ},
                        {"ranks_wrong", split.wrong},
                        {"ranks_right", split.right}});
      if (!c.pass && r.produced.at(k) && first_failed.is_null()) first_failed = c.name;
    }
    report_list.push_back({{"title", r.title}, {"part", r.part}, {"checks", checks}});
  }
  return {{"verdict", lesson_verdict(parts)},
          {"parts", part_list},
          {"first_failed", first_failed},
          {"todo", first_todo},
          {"reports", report_list}};
}

namespace {

/// The role the environment gives this program, and the folder of transcripts it names.
std::pair<LessonRole, std::string> role_from_environment() {
  if (const char* folder = std::getenv(kJudgeVariable); folder != nullptr) {
    return {LessonRole::judge, folder};
  }
  if (const char* folder = std::getenv(kTranscriptVariable); folder != nullptr) {
    return {LessonRole::exercise, folder};
  }
  return {LessonRole::alone, {}};
}

/// `text` as a seed; UsageError, naming `where`, when it is not one.
std::uint64_t parse_seed(const char* text, const std::string& where) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || *text == '-' || *text == '\0') {
    throw UsageError(
        fmt::format("{} '{}' is not a seed (a number from 0 to 2^64 - 1)", where, text));
  }
  return value;
}

/// The run's seed. A judge, and a program run alone, read TPLAB_LESSON_SEED. The exercise's
/// job reads it from the file `seed` the launcher left in its transcripts' folder, which rank 0
/// removes once every rank has read it, before any of the exercise's code runs: its code finds
/// the seed neither in its environment nor in a file (it could draw the inputs again from it,
/// and compute the answer alone). Collective in the exercise's job.
std::uint64_t read_run_seed(LessonRole role, const std::string& transcripts, int rank) {
  if (role != LessonRole::exercise) {
    const char* text = std::getenv(kSeedVariable);
    return text == nullptr || *text == '\0' ? 0 : parse_seed(text, kSeedVariable);
  }
  const std::filesystem::path file = std::filesystem::path(transcripts) / "seed";
  const std::optional<std::string> text = app::read_own_file(file, "the run's seed");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::filesystem::remove(file);
  MPI_Barrier(MPI_COMM_WORLD);
  if (!text) throw UsageError(fmt::format("the exercise's job has no seed at {}", file.string()));
  return parse_seed(text->c_str(), file.string());
}

/// Prints the lesson's verdict on rank 0, as a run alone and a judge end.
void print_verdict(const Lesson& lesson, const std::string& verdict) {
  if (lesson.rank() != 0) return;
  std::vector<std::string> parts;
  for (const PartResult& p : lesson.parts()) {
    parts.push_back(fmt::format("{} {}", p.name, verdict_name(p.verdict)));
  }
  const std::string summary = fmt::format("({})", fmt::join(parts, ", "));
  if (verdict == "pass") fmt::print("\nPASS {}\n", summary);
  if (verdict == "wrong") {
    bool failed_check = false;
    for (const CheckedReport& r : lesson.reports()) {
      for (const TensorCheck& c : r.checks) failed_check = failed_check || !c.pass;
    }
    fmt::print("\nWRONG {}: see {}\n", summary,
               failed_check ? "the rows marked FAIL above" : "the error above");
  }
  if (verdict == "not_started") {
    fmt::print("\nnot started: the exercise still has a TODO {}\n", summary);
  }
  if (verdict == "in_progress") fmt::print("\nin progress {}\n", summary);
  std::fflush(stdout);
}

}  // namespace

int run_lesson(const std::string& name, const std::function<void(Lesson&)>& body,
               const std::function<DeviceFamilies()>& families) {
  MpiSession session;
  CpuDevice device = families ? CpuDevice(families()) : CpuDevice();
  const auto [role, transcripts] = role_from_environment();
  const char* trace_path = std::getenv(kTraceVariable);
  std::shared_ptr<TraceRecorder> trace;
  std::unique_ptr<Comm> world;
  try {
    if (trace_path != nullptr && role != LessonRole::judge) {
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      trace = std::make_shared<TraceRecorder>(rank + 1, app::trace_capacity());
    }
    world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>(), trace);
    run_seed = read_run_seed(role, transcripts, world->rank());
  } catch (const UsageError& e) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fmt::print(stderr, "{}: error [rank {}/{}]: {}\n", name, rank, size, e.what());
    return 2;
  }
  Lesson lesson(*world, device, role, transcripts);
  if (trace) {
    app::start_trace_clock(*trace, MPI_COMM_WORLD);
    device.trace_into(trace.get());
  }
  try {
    body(lesson);
    if (trace) {
      device.trace_into(nullptr);
      app::write_trace_file(*trace, MPI_COMM_WORLD, trace_path, "cpu", device.description());
    }
  } catch (const UsageError& e) {
    // A refused world size, decided alike on every rank before any part.
    fmt::print(stderr, "{}: error [rank {}/{}]: {}\n", name, lesson.rank(), lesson.size(),
               e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: rank {}/{} failed outside the lesson's parts: {}; ending the job\n",
               name, lesson.rank(), lesson.size(), e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
  }
  // Under `tplab lesson check` every rank exits 0 once it has written what its role writes, so
  // that mpiexec has no failed process to report on top of the lesson's own words.
  try {
    if (role == LessonRole::exercise) {
      const auto file = std::filesystem::path(transcripts) / transcript_file_name(lesson.rank());
      app::write_result(file.string(), transcript_json(lesson.transcript()), kTranscriptVariable);
      return 0;
    }
    const std::string verdict = lesson_verdict(lesson.parts());
    print_verdict(lesson, verdict);
    if (role == LessonRole::alone) {
      return verdict == "pass" ? 0 : verdict == "wrong" ? 1 : kExitNotStarted;
    }
    const char* path = std::getenv(kVerdictVariable);
    if (path == nullptr) throw UsageError(fmt::format("a judge needs {}", kVerdictVariable));
    if (lesson.rank() == 0) {
      app::write_result(path, verdict_json(lesson.parts(), lesson.reports()), kVerdictVariable);
    }
    return 0;
  } catch (const UsageError& e) {
    fmt::print(stderr, "{}: error: {}\n", name, e.what());
    return 2;
  }
}

std::vector<double> collective_pattern(const std::vector<CollectiveCount>& counts,
                                       Collective kind) {
  std::vector<double> pattern(3, 0.0);
  for (const CollectiveCount& c : counts) {
    if (c.collective != kind) {
      pattern[2] += static_cast<double>(c.calls);
      continue;
    }
    pattern[0] += static_cast<double>(c.calls);
    pattern[1] += static_cast<double>(c.elements);
  }
  return pattern;
}

void expect_collectives(Lesson& lesson, const std::string& name, const TensorPlacement& place,
                        const std::vector<CollectiveCount>& counts, Collective kind, double calls,
                        double elements) {
  if (lesson.size() == 1) return;  // a group of one communicates nothing
  Device& device = lesson.device();
  Tensor measured = device.empty({3}, DType::f64);
  device.upload(collective_pattern(counts, kind), measured);
  lesson.expect_measured(name, host_array({3}, {calls, elements, 0.0}), place, measured,
                         exact_tolerance());
  lesson.explain(name, fmt::format("[{0} calls, {0} N, other calls] per rank: the step is {1:g} "
                                   "{0} of N = {2:g} elements, and no other collective",
                                   collective_name(kind), calls, elements));
}

HostArray host_array(Extents extents, std::vector<double> values) {
  check(element_count(extents) == static_cast<std::int64_t>(values.size()),
        "host_array: extents and values disagree");
  return {std::move(extents), std::move(values)};
}

std::vector<double> from_every_rank(Lesson& lesson, const std::vector<double>& mine) {
  Device& device = lesson.device();
  const auto n = static_cast<std::int64_t>(mine.size());
  Tensor shard = device.empty({n}, DType::f64);
  device.upload(mine, shard);
  Tensor all = device.empty({lesson.size() * n}, DType::f64);
  lesson.world().all_gather(shard, all);
  std::vector<double> values(static_cast<std::size_t>(lesson.size() * n));
  device.download(all, values);
  return values;
}

std::vector<double> draw(std::int64_t count, std::uint64_t seed, bool integers) {
  std::mt19937_64 engine(input_seed(seed));
  std::vector<double> values(static_cast<std::size_t>(count));
  for (double& v : values) {
    // The top 53 bits as a double in [0, 1): the same on every rank and every platform.
    const double u = static_cast<double>(engine() >> 11) * 0x1.0p-53;
    v = integers ? static_cast<double>(static_cast<int>(u * 5.0) - 2) : 2.0 * u - 1.0;
  }
  return values;
}

HostArray reference_matmul(const HostArray& a, const HostArray& b) {
  const std::int64_t m = a.extents.at(0), k = a.extents.at(1), n = b.extents.at(1);
  check(b.extents.at(0) == k, "reference_matmul: inner extents differ");
  HostArray c{{m, n}, std::vector<double>(static_cast<std::size_t>(m * n), 0.0)};
  // [m, k] x [k, n] -> [m, n], summed in the order of k, as one device would
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t p = 0; p < k; ++p) {
      const double aip = a.values[static_cast<std::size_t>(i * k + p)];
      for (std::int64_t j = 0; j < n; ++j) {
        c.values[static_cast<std::size_t>(i * n + j)] +=
            aip * b.values[static_cast<std::size_t>(p * n + j)];
      }
    }
  }
  return c;
}

HostArray reference_transpose(const HostArray& a) {
  const std::int64_t rows = a.extents.at(0), cols = a.extents.at(1);
  HostArray t{{cols, rows}, std::vector<double>(a.values.size())};
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      t.values[static_cast<std::size_t>(c * rows + r)] =
          a.values[static_cast<std::size_t>(r * cols + c)];
    }
  }
  return t;
}

}  // namespace tplab::lessons
