/// @file
/// What every lesson program shares: the TODO marker, the world a lesson runs in, its parts,
/// the shard blocks it prints, and the per-tensor check against the reference.
///
/// A lesson program is the learner's exercise (or the library's solution) linked with the
/// lesson's check.cpp, which runs the lesson as named parts ("forward", "backward"). It plays
/// one of three roles (LessonRole). Run by hand it checks itself and exits 0 when every part
/// passes, 1 when a part is wrong (a tensor differs from the reference, or the part threw an
/// error), 2 when the world size cannot run the lesson, and kExitNotStarted when no part is
/// wrong but one still holds a TPLAB_TODO() (the lesson is not started, or in progress). Under
/// `tplab lesson check` and `grade` the verdict never comes from the exercise's process: the
/// exercise's program only writes what it produced (transcript.hpp), and the lesson's program
/// built from the library's solution, run afterwards as a job of its own, judges it.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "host_array.hpp"
#include "lessons/common/exercise.hpp"
#include "lessons/common/lesson_environment.hpp"
#include "lessons/common/shard_location.hpp"
#include "lessons/common/transcript.hpp"
#include "scheme/placement.hpp"
#include "tensor_check.hpp"

namespace tplab::lessons {

using verify::HostArray;
using verify::TensorCheck;
using verify::Tolerance;

/// The tolerance of a check where every sum is an integer well inside the dtype's exact range.
Tolerance exact_tolerance();

/// What a lesson program does with the tensors its check takes from the code it runs.
enum class LessonRole {
  alone,     ///< run by hand: compares them with the reference itself and prints the verdict
  exercise,  ///< under tplab, the exercise's job: writes them to its transcript, judges nothing
  judge,     ///< under tplab, the solution's job: compares the exercise's transcripts instead
};

/// The seed of a draw of the check's inputs: `base` as the check names it, unchanged when the
/// run's seed (TPLAB_LESSON_SEED) is 0, else mixed with it, so that a grade's inputs cannot be
/// known before it runs (`lesson grade` draws a fresh run seed each time).
std::uint64_t input_seed(std::uint64_t base);

/// One tensor of a lesson and its shard in the project's notation, e.g. ("W1", "[h, 4h_T]"):
/// the 4h columns split over the T axis. The index ranges printed beside it come from the
/// placement.
struct ShardNote {
  /// The tensor as the lesson names it: "W1".
  std::string label;
  /// Its shard in the project's notation: "[h, 4h_T]".
  std::string notation;
  /// Where it lives: the block every rank holds.
  const TensorPlacement* placement = nullptr;
};

/// One report() of a lesson: its title, its part and the verdict on every tensor it compared.
struct CheckedReport {
  /// The title the table was printed under.
  std::string title;
  /// The part it was made in: "forward".
  std::string part;
  /// The tensors, merged over all ranks; worst_where says where each one's worst element lies.
  std::vector<TensorCheck> checks;
  /// Per check: whether the exercise produced it on every rank. A judge marks a tensor not
  /// produced when the exercise's part ended before it (a TODO, an error, an early exit); such
  /// a check fails, but counts as not started rather than wrong.
  std::vector<bool> produced;
  /// Notes on single tensors ("Y: this is the sum over the J group ..."), as (tensor, text).
  std::vector<std::pair<std::string, std::string>> notes;
  /// For each of `checks`, in order, which ranks' own shards are wrong and which are right;
  /// every rank is right for a tensor that passed.
  std::vector<RankSplit> ranks;
};

/// How one part of a lesson ended, the same on every rank.
enum class PartVerdict {
  pass,         ///< every tensor it checked agrees with the reference
  wrong,        ///< a tensor differs, or the part threw an error on some rank
  not_started,  ///< it met a TPLAB_TODO(), or the part it needs did not pass
};

/// "pass", "wrong" or "not_started", as the verdict file writes it.
std::string verdict_name(PartVerdict verdict);

/// One part of a lesson run and how it ended.
struct PartResult {
  /// The part's name: "forward", "backward".
  std::string name;
  /// Its verdict, agreed over the world.
  PartVerdict verdict = PartVerdict::pass;
  /// The file:line of the TODO it met; empty when none.
  std::string todo;
  /// Why it ended so, when a report does not say: "rank 1: CpuDevice::merge_heads: ...", or
  /// "needs forward's outputs, and forward is not started". Empty otherwise.
  std::string message;
};

/// The ranks of one lesson run, its device, its parts and the checks they made.
class Lesson {
 public:
  /// A lesson on the ranks of `world` (an MpiComm), computing on `device`, in `role`. A judge
  /// reads this rank's transcript from the folder `transcripts`. Collective: it opens a
  /// communicator of its own on which the ranks agree on each part's verdict.
  Lesson(Comm& world, Device& device, LessonRole role = LessonRole::alone,
         const std::string& transcripts = {});

  /// The role this program plays.
  LessonRole role() const { return role_; }
  /// Whether this rank prints what the check found and says of it: rank 0 of a run alone or of
  /// the judge. The exercise's job leaves its terminal to the exercise's own output.
  bool speaks() const { return rank() == 0 && role_ != LessonRole::exercise; }
  /// Whether this process runs the exercise's code (alone or as the exercise's job): where what
  /// the check measures of the exercise itself (its time) can be measured.
  bool runs_exercise() const { return role_ != LessonRole::judge; }

  /// The file this run's timelines go to when it is traced (`lesson check --trace`), else
  /// empty. Steps marked with TraceScope on device().trace() show in it by name.
  std::string trace_path() const;

  /// Every rank of the run.
  Comm& world() { return world_; }
  /// This rank's device.
  Device& device() { return device_; }
  /// This rank's number in the world.
  int rank() const { return world_.rank(); }
  /// The number of ranks, p.
  int size() const { return world_.size(); }

  /// Prints, where the lesson speaks(), the block of every tensor each rank holds, as index ranges
  /// of the global tensor: "rank 1: W1[h, 4h_T] = rows 0..15, cols 16..31 of [16, 64]"; a tensor
  /// every rank holds whole takes one line, "every rank: X[m, h] = rows 0..7, ...".
  void print_shards(const std::vector<ShardNote>& notes) const;

  /// Runs `body` as the part `name` on every rank, then agrees over the world how it ended:
  /// not_started when a rank met a TPLAB_TODO() or require_part() stopped it; wrong when a
  /// report in it failed or a rank threw (that rank prints "rank R: <message>" to stderr);
  /// pass otherwise. A report that failed makes the part wrong even if a TODO follows. The
  /// program goes on to the next part whatever the verdict. Collective.
  PartVerdict part(const std::string& name, const std::function<void()>& body);

  /// Inside a part: ends it as not started, on every rank alike, unless the earlier part
  /// `earlier` passed; `why` says what this part needs from it ("backward runs on the
  /// activations forward keeps"). For a part whose inputs the reference cannot stand in for.
  void require_part(const std::string& earlier, const std::string& why);

  /// The verdict of the earlier part `name`; throws InternalError when no part had that name.
  PartVerdict verdict_of(const std::string& name) const;

  /// rank's shard of `global`, cut as `placement` says, on the lesson's device in f64.
  Tensor shard(const HostArray& global, const TensorPlacement& placement);

  /// Queues the comparison of this rank's shard `got` with the block of `reference` that
  /// `placement` gives it. atol is tolerance.atol_scale times the reference's RMS (for a
  /// gradient that is zero in exact arithmetic, such as d_bk, its queued sibling's RMS).
  /// Throws UsageError, naming the expected block, when `got` has the wrong extents. Returns
  /// the values queued: `got`'s, or in a judge the exercise's, which are the ones to diagnose.
  /// The exercise's job records them in its transcript and compares nothing.
  const std::vector<double>& expect(const std::string& name, const HostArray& reference,
                                    const TensorPlacement& placement, const Tensor& got,
                                    const Tolerance& tolerance);

  /// The same for a tensor the check measured of the exercise from what counted() returned (a
  /// count of its collectives), not one the exercise produced: the exercise's job records
  /// nothing of it, and a judge compares its own measure, made from the exercise's counts in
  /// the transcript, so that no copy written by the exercise's process stands in for it.
  const std::vector<double>& expect_measured(const std::string& name, const HostArray& reference,
                                             const TensorPlacement& placement, const Tensor& got,
                                             const Tolerance& tolerance);

  /// What this rank's counters recorded of the exercise's collectives, `measured`: recorded in
  /// the exercise's transcript, and in a judge replaced by what the exercise's counters
  /// recorded there. Call it with the snapshot taken right after the exercise's code ran.
  std::vector<CollectiveCount> counted(std::vector<CollectiveCount> measured);

  /// Queues a note on the tensor `name` for the next report(), which prints it under the table
  /// (when the tensor failed) and writes it to the verdict file. Call it on every rank alike.
  void explain(const std::string& name, const std::string& text);

  /// Compares the queued tensors over all ranks, prints the table on rank 0 under `title`,
  /// and returns whether every tensor passed (the same on every rank). A failed tensor's
  /// worst element is named by its place in the global tensor, its block and the ranks that
  /// hold the block. Collective; only inside a part. The exercise's job only marks the report
  /// in its transcript and returns true.
  bool report(const std::string& title);

  /// Whether `mine` is true on every rank. Collective over the world.
  bool on_every_rank(bool mine);

  /// Every report so far, in order (what `tplab lesson grade` scores, tensor by tensor).
  const std::vector<CheckedReport>& reports() const { return reports_; }
  /// Every part so far, in order.
  const std::vector<PartResult>& parts() const { return parts_; }
  /// The exercise's job: what this rank has written for the judge so far.
  const Transcript& transcript() const { return own_; }

 private:
  struct Agreement;  // the run's own communicator for agreeing on verdicts

  /// Drops the tensors and notes queued since the last report.
  void clear_queue();

  /// expect() and expect_measured(): queues a tensor, `transcribed` when the exercise produced
  /// it (recorded by the exercise's job, taken from its transcript by a judge).
  const std::vector<double>& queue(const std::string& name, const HostArray& reference,
                                   const TensorPlacement& placement, const Tensor& got,
                                   const Tolerance& tolerance, bool transcribed);

  /// In a judge: finds the exercise's events of part `name` and how that part ended there.
  void begin_exercise_part(const std::string& name);
  /// In a judge, after the check's part: the exercise's end of it, where it stopped early.
  void end_exercise_part();
  /// In a judge: why the exercise did not produce a tensor, as this rank's transcript says.
  std::string not_produced_reason() const;

  /// In a judge: the exercise's next event of the current part. Nothing, with stopped_ set,
  /// once the exercise's part has ended (or when the event is not of `kind`).
  const TranscriptEvent* next_event(TranscriptEvent::Kind kind, const std::string& what);

  /// How the exercise's run of the current part ended before the check had all it compares.
  struct Stop {
    std::string outcome;  ///< "stopped" (a TODO, a part it needs) or "threw"
    std::string todo, message;
  };

  Comm& world_;
  Device& device_;
  LessonRole role_;
  std::shared_ptr<Agreement> agreement_;
  Transcript own_;                               // the exercise's job: what it writes
  std::optional<Transcript> exercise_;           // a judge: what the exercise wrote
  std::string no_transcript_;                    // a judge: why there is none
  std::size_t cursor_ = 0;                       // a judge: the next event of exercise_
  std::optional<TranscriptEvent> exercise_end_;  // a judge: how the exercise's part ended
  std::optional<Stop> stopped_;                  // a judge: the exercise's part ended early
  std::vector<int> statuses_;  // a judge, per queued tensor: 0 produced, 1 not, 2 wrong extents
  std::vector<std::string> status_texts_;
  std::string current_part_;           // empty outside part()
  std::vector<HostArray> references_;  // kept alive until report()
  std::vector<std::string> names_;
  std::vector<const TensorPlacement*> placements_;
  std::deque<std::vector<double>> got_;  // a deque: expect() returns references into it
  std::vector<Tolerance> tolerances_;
  std::vector<std::pair<std::string, std::string>> notes_;
  std::vector<CheckedReport> reports_;
  std::vector<PartResult> parts_;
};

/// Refuses, identically on every rank, a world size that cannot run the lesson: `what` says
/// why ("lesson 01 splits the 64 columns of W over t ranks"), `sizes` what would work. Call it
/// before the first part.
void require_world_size(const Lesson& lesson, bool ok, const std::string& what,
                        const std::vector<int>& sizes);

/// The verdict of a whole lesson from its parts' verdicts: "pass" when every part passes,
/// "wrong" when any is wrong, "not_started" when none passed or failed, else "in_progress".
std::string lesson_verdict(const std::vector<PartResult>& parts);

/// The verdict file of a lesson run (spec: the launcher reads it):
/// {"verdict", "parts": [{"name", "verdict", "todo", "message"}], "first_failed", "todo",
///  "reports": [{"title", "part", "checks": [{"name", "pass", ..., "where", "note",
///  "ranks_wrong", "ranks_right"}]}]}.
nlohmann::json verdict_json(const std::vector<PartResult>& parts,
                            const std::vector<CheckedReport>& reports);

/// Runs one lesson program: starts MPI, makes the world and a CPU device, and runs `body` on
/// every rank. `body` checks the world size, prints the shards and runs the lesson's parts
/// (Lesson::part). Run alone it prints the lesson's verdict on rank 0 and returns the exit code
/// (see the top of this file). As the exercise's job (TPLAB_LESSON_TRANSCRIPT names a folder)
/// every rank writes its transcript there and exits 0; as the judge (TPLAB_LESSON_JUDGE names
/// that folder) rank 0 writes verdict_json to TPLAB_LESSON_VERDICT and every rank exits 0.
///
/// `families`, when given, makes the compute operations of the CPU device (a lesson that
/// measures the exercise's computation wraps one of them); the CPU's own otherwise.
int run_lesson(const std::string& name, const std::function<void(Lesson&)>& body,
               const std::function<DeviceFamilies()>& families = {});

/// What a lesson whose point is one collective scores of a rank's counts: [calls of `kind`, its
/// elements N over those calls, calls of any other collective].
std::vector<double> collective_pattern(const std::vector<CollectiveCount>& counts, Collective kind);

/// Queues, at more than one rank, the check that this rank made `calls` calls of `kind` moving
/// `elements` in all and no other collective, from `counts` (Lesson::counted), as the tensor
/// `name` = collective_pattern(counts, kind), with a note that says what was expected. `place`
/// must outlive the report: replicated(name, {3}, p).
void expect_collectives(Lesson& lesson, const std::string& name, const TensorPlacement& place,
                        const std::vector<CollectiveCount>& counts, Collective kind, double calls,
                        double elements);

/// `values` (row-major) as a global array with these extents.
HostArray host_array(Extents extents, std::vector<double> values);

/// Every rank's `mine` (all of one length), in rank order: one all-gather over the lesson's
/// world. Collective.
std::vector<double> from_every_rank(Lesson& lesson, const std::vector<double>& mine);

/// Values drawn from input_seed(seed): small integers -2..2 (every sum exact) or uniform in
/// [-1, 1).
std::vector<double> draw(std::int64_t count, std::uint64_t seed, bool integers);

/// C[m, n] = A[m, k] B[k, n] on the host in f64: the single-device reference of a matmul.
HostArray reference_matmul(const HostArray& a, const HostArray& b);

/// A[n, m] = A[m, n]^T on the host.
HostArray reference_transpose(const HostArray& a);

}  // namespace tplab::lessons
