/// @file
/// What every lesson program shares: the TODO marker, the world a lesson runs in, the shard
/// shapes it prints, and the per-tensor check against the reference.
///
/// A lesson program is the learner's exercise (or the library's solution) linked with the
/// lesson's check.cpp. It exits 0 when every tensor agrees with the reference, 1 when one does
/// not, 2 when the world size cannot run the lesson, and kExitNotStarted when the exercise
/// still holds a TPLAB_TODO().
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "host_array.hpp"
#include "lessons/common/exercise.hpp"
#include "scheme/placement.hpp"
#include "tensor_check.hpp"

namespace tplab::lessons {

using verify::HostArray;
using verify::TensorCheck;
using verify::Tolerance;

/// The tolerance of a check where every sum is an integer well inside the dtype's exact range.
Tolerance exact_tolerance();

/// One tensor of a lesson and how the project's notation names its shard, e.g. ("W1",
/// "[h, 4h/t]"); the shape printed beside it comes from the placement.
struct ShardNote {
  /// The tensor as the lesson names it: "W1".
  std::string label;
  /// Its shard in the project's notation: "[h, 4h/t]".
  std::string notation;
  /// Where it lives: the shard's real extents on every rank.
  const TensorPlacement* placement = nullptr;
};

/// One report() of a lesson: its title and the verdict on every tensor it compared.
struct CheckedReport {
  /// The title the table was printed under.
  std::string title;
  /// The tensors, merged over all ranks.
  std::vector<TensorCheck> checks;
};

/// The ranks of one lesson run, its device, and the checks it has made so far.
class Lesson {
 public:
  /// A lesson on the ranks of `world`, computing on `device`.
  Lesson(Comm& world, Device& device) : world_(world), device_(device) {}

  /// Every rank of the run.
  Comm& world() { return world_; }
  /// This rank's device.
  Device& device() { return device_; }
  /// This rank's number in the world.
  int rank() const { return world_.rank(); }
  /// The number of ranks, p.
  int size() const { return world_.size(); }

  /// Prints, on rank 0, what every rank holds: "rank 1: W1[h, 4h/t] = [16, 32]".
  void print_shards(const std::vector<ShardNote>& notes) const;

  /// rank's shard of `global`, cut as `placement` says, on the lesson's device in f64.
  Tensor shard(const HostArray& global, const TensorPlacement& placement);

  /// Queues the comparison of this rank's shard `got` with the block of `reference` that
  /// `placement` gives it. atol is tolerance.atol_scale times the reference's RMS (for a
  /// gradient that is zero in exact arithmetic, such as d_bk, its queued sibling's RMS).
  void expect(const std::string& name, const HostArray& reference, const TensorPlacement& placement,
              const Tensor& got, const Tolerance& tolerance);

  /// Compares the queued tensors over all ranks, prints the table on rank 0 under `title`,
  /// and returns whether every tensor passed (the same on every rank). Collective.
  bool report(const std::string& title);

  /// Every report so far, in order (what `tplab lesson grade` scores, tensor by tensor).
  const std::vector<CheckedReport>& reports() const { return reports_; }

 private:
  Comm& world_;
  Device& device_;
  std::vector<HostArray> references_;  // kept alive until report()
  std::vector<std::string> names_;
  std::vector<const TensorPlacement*> placements_;
  std::vector<std::vector<double>> got_;
  std::vector<Tolerance> tolerances_;
  std::vector<CheckedReport> reports_;
};

/// Refuses, identically on every rank, a world size that cannot run the lesson: `what` says
/// why ("lesson 01 splits the 64 columns of W over t ranks"), `sizes` what would work.
void require_world_size(const Lesson& lesson, bool ok, const std::string& what,
                        const std::vector<int>& sizes);

/// Runs one lesson program: starts MPI, makes the world and a CPU device, runs `body` on every
/// rank and turns its verdict, a TODO, or a refused world size into the exit code. The ranks
/// agree on the verdict before they leave (a TODO anywhere makes the run "not started").
/// Under `tplab lesson check` (TPLAB_LESSON_VERDICT names a file), rank 0 writes the verdict
/// and every report there as JSON, and every rank exits 0.
int run_lesson(const std::string& name, const std::function<bool(Lesson&)>& body);

/// `values` (row-major) as a global array with these extents.
HostArray host_array(Extents extents, std::vector<double> values);

/// Values drawn from `seed`: small integers -2..2 (every sum exact) or uniform in [-1, 1).
std::vector<double> draw(std::int64_t count, std::uint64_t seed, bool integers);

/// C[m, n] = A[m, k] B[k, n] on the host in f64: the single-device reference of a matmul.
HostArray reference_matmul(const HostArray& a, const HostArray& b);

}  // namespace tplab::lessons
