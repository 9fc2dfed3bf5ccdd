#include "lesson.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "harness.hpp"
#include "job_result.hpp"
#include "report.hpp"
#include "shard_location.hpp"

namespace tplab::lessons {

Tolerance exact_tolerance() {
  return verify::tolerance_for(DType::f64, /*exact=*/true);
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

Lesson::Lesson(Comm& world, Device& device)
    : world_(world), device_(device), agreement_(std::make_shared<Agreement>(MPI_COMM_WORLD)) {}

void Lesson::print_shards(const std::vector<ShardNote>& notes) const {
  if (rank() != 0) return;
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

PartVerdict Lesson::part(const std::string& name, const std::function<void()>& body) {
  check(current_part_.empty(), "Lesson::part: parts do not nest");
  current_part_ = name;
  const std::size_t first_report = reports_.size();
  RankOutcome outcome = ran;
  PartResult result{name, PartVerdict::pass, {}, {}};
  try {
    body();
  } catch (const NotStarted& e) {
    outcome = stopped;
    result.todo = e.what();
  } catch (const NeedsEarlierPart& e) {
    outcome = stopped;
    result.message = e.what();
  } catch (const std::exception& e) {
    outcome = threw;
    result.message = fmt::format("rank {}: {}", rank(), e.what());
  }
  clear_queue();
  current_part_.clear();

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
    if (rank() == thrower) {
      fmt::print(stderr, "{}\n", result.message);
      std::fflush(stderr);
    }
    agreement_->broadcast(result.message, thrower);
  } else if (worst == stopped && agreed[2] > 0) {
    // Every rank keeps the TODO of the lowest rank that met one (in SPMD all meet the same).
    agreement_->broadcast(result.todo, size() - agreed[2]);
  }
  bool reports_pass = true;
  for (std::size_t i = first_report; i < reports_.size(); ++i) {
    for (const TensorCheck& c : reports_[i].checks) reports_pass = reports_pass && c.pass;
  }
  result.verdict = worst == threw || !reports_pass ? PartVerdict::wrong
                   : worst == stopped              ? PartVerdict::not_started
                                                   : PartVerdict::pass;
  if (rank() == 0) {
    std::string said = result.verdict == PartVerdict::pass    ? "PASS"
                       : result.verdict == PartVerdict::wrong ? "WRONG"
                                                              : "not started";
    if (!result.todo.empty()) said += " (TODO at " + result.todo + ")";
    if (thrower >= 0) {
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

void Lesson::expect(const std::string& name, const HostArray& reference,
                    const TensorPlacement& placement, const Tensor& got,
                    const Tolerance& tolerance) {
  const Extents wanted = placement.local_extents(rank());
  if (got.extents() != wanted) {
    const BlockRange& block = placement.blocks.at(static_cast<std::size_t>(rank()));
    throw UsageError(fmt::format("{} on rank {} is {}, but this rank should hold {}: {} of {}",
                                 name, rank(), to_string(got.extents()), to_string(wanted),
                                 block_ranges(block, placement.global),
                                 to_string(placement.global)));
  }
  std::vector<double> values(static_cast<std::size_t>(got.numel()));
  device_.download(got, values);
  names_.push_back(name);
  references_.push_back(reference);
  placements_.push_back(&placement);
  got_.push_back(std::move(values));
  tolerances_.push_back(tolerance);
}

void Lesson::explain(const std::string& name, const std::string& text) {
  notes_.emplace_back(name, text);
}

bool Lesson::report(const std::string& title) {
  check(!current_part_.empty(), "Lesson::report belongs inside a part");
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
    pass = pass && c.pass;
    const std::int64_t index = c.nonfinite > 0 ? c.first_nonfinite : c.worst_index;
    if (!c.pass && index >= 0) c.worst_where = element_location(c.name, *placements_[i], index);
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
    verify::print_tensor_table(checks, stdout);
    for (std::size_t i = 0; i < checks.size(); ++i) {
      if (const std::string split = describe_rank_split(checks[i].name, *placements_[i], ranks[i]);
          !split.empty()) {
        fmt::print("  {}\n", split);
      }
    }
    for (const auto& [tensor, text] : notes_) {
      for (const TensorCheck& c : checks) {
        if (c.name == tensor && !c.pass) fmt::print("  {}: {}\n", tensor, text);
      }
    }
    std::fflush(stdout);
  }
  reports_.push_back({title, current_part_, std::move(checks), notes_, std::move(ranks)});
  clear_queue();
  return pass;
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
    for (std::size_t i = 0; i < r.checks.size(); ++i) {
      const TensorCheck& c = r.checks[i];
      const RankSplit& split = r.ranks.at(i);
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
                        {"replicas_identical", c.replicas_differ.empty()},
                        {"replicas_differ", c.replicas_differ},
                        {"ranks_wrong", split.wrong},
                        {"ranks_right", split.right}});
      if (!c.pass && first_failed.is_null()) first_failed = c.name;
    }
    report_list.push_back({{"title", r.title}, {"part", r.part}, {"checks", checks}});
  }
  return {{"verdict", lesson_verdict(parts)},
          {"parts", part_list},
          {"first_failed", first_failed},
          {"todo", first_todo},
          {"reports", report_list}};
}

int run_lesson(const std::string& name, const std::function<void(Lesson&)>& body) {
  MpiSession session;
  CpuDevice device;
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  Lesson lesson(*world, device);
  try {
    body(lesson);
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
  const std::string verdict = lesson_verdict(lesson.parts());
  if (lesson.rank() == 0) {
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
                 failed_check ? "the rows marked FAIL above" : "the error on stderr");
    }
    if (verdict == "not_started") {
      fmt::print("\nnot started: the exercise still has a TODO {}\n", summary);
    }
    if (verdict == "in_progress") fmt::print("\nin progress {}\n", summary);
  }
  std::fflush(stdout);
  // Under `tplab lesson check` the verdict goes to a file and every rank exits 0, so that
  // mpiexec has no failed process to report on top of the lesson's own words.
  if (const char* path = std::getenv("TPLAB_LESSON_VERDICT"); path != nullptr) {
    if (lesson.rank() == 0) {
      try {
        app::write_result(path, verdict_json(lesson.parts(), lesson.reports()),
                          "TPLAB_LESSON_VERDICT");
      } catch (const UsageError& e) {
        fmt::print(stderr, "{}: error: {}\n", name, e.what());
        return 2;
      }
    }
    return 0;
  }
  return verdict == "pass" ? 0 : verdict == "wrong" ? 1 : kExitNotStarted;
}

HostArray host_array(Extents extents, std::vector<double> values) {
  check(element_count(extents) == static_cast<std::int64_t>(values.size()),
        "host_array: extents and values disagree");
  return {std::move(extents), std::move(values)};
}

std::vector<double> draw(std::int64_t count, std::uint64_t seed, bool integers) {
  std::mt19937_64 engine(seed);
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
