#include "lesson.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>

#include "comm/mpi_comm.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "harness.hpp"
#include "job_result.hpp"
#include "report.hpp"

namespace tplab::lessons {

Tolerance exact_tolerance() {
  return verify::tolerance_for(DType::f64, /*exact=*/true);
}

void Lesson::print_shards(const std::vector<ShardNote>& notes) const {
  if (rank() != 0) return;
  fmt::print("what each rank holds (p = {} ranks):\n", size());
  for (int r = 0; r < size(); ++r) {
    std::vector<std::string> parts;
    for (const ShardNote& n : notes) {
      parts.push_back(
          fmt::format("{}{} = {}", n.label, n.notation, to_string(n.placement->local_extents(r))));
    }
    fmt::print("  rank {}: {}\n", r, fmt::join(parts, ", "));
  }
  std::fflush(stdout);
}

Tensor Lesson::shard(const HostArray& global, const TensorPlacement& placement) {
  return verify::upload_shard(device_, global, placement, rank(), DType::f64);
}

void Lesson::expect(const std::string& name, const HostArray& reference,
                    const TensorPlacement& placement, const Tensor& got,
                    const Tolerance& tolerance) {
  const Extents wanted = placement.local_extents(rank());
  if (got.extents() != wanted) {
    // Shapes are known on every rank alike before any collective, so all ranks stop here.
    throw UsageError(fmt::format("{} on rank {} is {}, but this rank should hold {} ({})", name,
                                 rank(), to_string(got.extents()), to_string(wanted),
                                 placement.rule));
  }
  std::vector<double> values(static_cast<std::size_t>(got.numel()));
  device_.download(got, values);
  names_.push_back(name);
  references_.push_back(reference);
  placements_.push_back(&placement);
  got_.push_back(std::move(values));
  tolerances_.push_back(tolerance);
}

bool Lesson::report(const std::string& title) {
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
  const std::vector<TensorCheck> checks = verify::compare_shards(world_, shards);
  bool pass = true;
  for (const TensorCheck& c : checks) pass = pass && c.pass;
  if (rank() == 0) {
    fmt::print("\n{} (p = {} ranks)\n", title, size());
    verify::print_tensor_table(checks, stdout);
    std::fflush(stdout);
  }
  reports_.push_back({title, checks});
  names_.clear();
  references_.clear();
  placements_.clear();
  got_.clear();
  tolerances_.clear();
  return pass;
}

void require_world_size(const Lesson& lesson, bool ok, const std::string& what,
                        const std::vector<int>& sizes) {
  if (ok) return;
  throw UsageError(fmt::format("{}, so it runs on {} ranks; got {}", what, fmt::join(sizes, ", "),
                               lesson.size()));
}

namespace {

/// A number of a check as JSON: null where it is NaN or Inf (JSON has neither).
nlohmann::json finite_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

/// The verdict and every report of a lesson run, for `tplab lesson check` and `grade`.
nlohmann::json findings_json(const std::string& verdict, const std::string& todo,
                             const std::vector<CheckedReport>& reports) {
  nlohmann::json report_list = nlohmann::json::array();
  for (const CheckedReport& r : reports) {
    nlohmann::json tensors = nlohmann::json::array();
    for (const TensorCheck& c : r.checks) {
      tensors.push_back({{"name", c.name},
                         {"pass", c.pass},
                         {"max_abs", finite_or_null(c.max_abs)},
                         {"rel_l2", finite_or_null(c.rel_l2)},
                         {"tolerance_used", finite_or_null(c.share)},
                         {"worst_index", c.worst_index},
                         {"worst_got", finite_or_null(c.worst_got)},
                         {"worst_ref", finite_or_null(c.worst_ref)},
                         {"nonfinite", c.nonfinite},
                         {"replicas_identical", c.replicas_differ.empty()},
                         {"replicas_differ", c.replicas_differ}});
    }
    report_list.push_back({{"title", r.title}, {"tensors", tensors}});
  }
  return {{"verdict", verdict}, {"todo", todo}, {"reports", report_list}};
}

}  // namespace

int run_lesson(const std::string& name, const std::function<bool(Lesson&)>& body) {
  MpiSession session;
  CpuDevice device;
  auto world = MpiComm::world(std::make_shared<CommCounters>());
  Lesson lesson(*world, device);
  enum Verdict { pass = 0, wrong = 1, not_started = 2 };
  int verdict = pass;
  std::string todo;
  try {
    verdict = body(lesson) ? pass : wrong;
  } catch (const NotStarted& e) {
    verdict = not_started;
    todo = e.what();
  } catch (const UsageError& e) {
    fmt::print(stderr, "{}: error [rank {}/{}]: {}\n", name, lesson.rank(), lesson.size(),
               e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: rank {}/{} failed: {}; ending the job\n", name, lesson.rank(),
               lesson.size(), e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
  }
  Tensor agreed = device.empty({1}, DType::f64);
  device.fill(agreed, verdict);
  world->all_reduce(agreed, ReduceOp::max);
  verdict = static_cast<int>(agreed.data_as<double>()[0]);
  if (verdict == not_started && lesson.rank() == 0) {
    fmt::print("\nnot started: the exercise still has a TODO{}\n",
               todo.empty() ? std::string() : " (first one met at " + todo + ")");
  }
  if (lesson.rank() == 0 && verdict != not_started) {
    fmt::print("\n{}\n", verdict == pass ? "PASS" : "WRONG: see the rows marked FAIL above");
  }
  std::fflush(stdout);
  // Under `tplab lesson check` the verdict goes to a file and every rank exits 0, so that
  // mpiexec has no failed process to report on top of the lesson's own words.
  if (const char* path = std::getenv("TPLAB_LESSON_VERDICT"); path != nullptr) {
    if (lesson.rank() == 0) {
      const std::string said = verdict == pass    ? "pass"
                               : verdict == wrong ? "wrong"
                                                  : "not_started";
      try {
        app::write_result(path, findings_json(said, todo, lesson.reports()),
                          "TPLAB_LESSON_VERDICT");
      } catch (const UsageError& e) {
        fmt::print(stderr, "{}: error: {}\n", name, e.what());
        return 2;
      }
    }
    return 0;
  }
  return verdict == pass ? 0 : verdict == wrong ? 1 : kExitNotStarted;
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

}  // namespace tplab::lessons
