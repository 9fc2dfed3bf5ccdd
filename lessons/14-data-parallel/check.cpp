// Lesson 14 checker: the D x t mesh the exercise builds (each rank's coordinates, the world ranks
// of its TP and DP groups, and its replica's 1D MLP forward on the TP group it built), then its
// DP average of the gradients after the library's 1D backward on each replica's slice of the
// batch, one all-reduce per gradient and then one bucket: every gradient shard against the
// single-device reference on the whole global batch, its D replicas bitwise identical, and the
// all-reduces counted on the DP group. A wrong answer that is a classic mistake (the TP group's
// sum, no division by D, a division by p or t, no reduction, groups of the wrong colour) is
// named, from what each mistake would have given, computed here from the reference.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/error.hpp"
#include "layers/activation.hpp"
#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "lessons/common/reference_mlp.hpp"
#include "problem.hpp"
#include "reference_bridge.hpp"
#include "tp1d/mlp_1d.hpp"

namespace tplab::lessons::data_parallel {
namespace {

constexpr BlockShape kShape{4, 4, 16, 4};  // b, s, h, n: m = 16 tokens, 4h = 64
constexpr int kTensorParallel = 2;         // t: p = 4 is a 2 x 2 mesh, p = 8 a 4 x 2 one
constexpr int kExampleRank = 1;            // the rank whose groups the messages name
const std::vector<std::string> kGradients = {"d_b1", "d_b2", "d_w1", "d_w2"};  // name order

// ---- The mesh as the check knows it

/// p = D x t ranks, rank = dp_index x t + tp_rank (Megatron's order: the TP rank fastest).
struct Mesh {
  int p = 1, t = 1, d = 1;

  int dp_index(int r) const { return r / t; }
  int tp_rank(int r) const { return r % t; }
  /// Rank r's TP group: the t consecutive ranks of its replica, in tp_rank order.
  std::vector<int> tp_group(int r) const { return run(dp_index(r) * t, 1, t); }
  /// Rank r's DP group: the D ranks with its tp_rank, t apart, in dp_index order.
  std::vector<int> dp_group(int r) const { return run(tp_rank(r), t, d); }
  /// The groups of the other order, DP index fastest (rank = tp_rank x D + dp_index): what a
  /// mesh numbered the other way round, as DTensor's (tp, dp) mesh would be, gives.
  std::vector<int> dp_fastest_tp_group(int r) const { return run(r % d, d, t); }
  std::vector<int> dp_fastest_dp_group(int r) const { return run(r / d * d, 1, d); }

  static std::vector<int> run(int first, int stride, int count) {
    std::vector<int> ranks;
    for (int k = 0; k < count; ++k) ranks.push_back(first + k * stride);
    return ranks;
  }
};

/// "ranks 1, 3, 5, 7".
std::string ranks_text(const std::vector<int>& ranks) {
  return fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", fmt::join(ranks, ", "));
}

/// Every tensor's placement on the mesh: activations by rows over the replicas (each replica
/// its b/D sequences, whole on its TP group), parameters and their gradients as 1D splits them
/// over the TP group, the same on every replica; and the rows of the groups part's tables.
std::vector<TensorPlacement> mesh_placements(const Mesh& mesh) {
  const std::int64_t m = kShape.tokens(), h = kShape.h, ffn = kShape.ffn();
  const int t = mesh.t, p = mesh.p;
  using Block = std::pair<std::int64_t, std::int64_t>;
  const auto replica_rows = [t](int r) { return Block{r / t, 0}; };
  const auto tp_column = [t](int r) { return Block{0, r % t}; };
  const auto tp_row = [t](int r) { return Block{r % t, 0}; };
  const auto own_row = [](int r) { return Block{r, 0}; };
  std::vector<TensorPlacement> all;
  for (const char* name : {"x", "dy", "y"}) {
    all.push_back(
        blocked(name, {m, h}, "Shard(0) over dp, Replicate over tp", p, mesh.d, 1, replica_rows));
  }
  for (const std::string prefix : {"", "d_"}) {
    all.push_back(blocked(prefix + "w1", {h, ffn}, "Shard(1) over tp, Replicate over dp", p, 1, t,
                          tp_column));
    all.push_back(
        blocked(prefix + "b1", {ffn}, "Shard(0) over tp, Replicate over dp", p, 1, t, tp_column));
    all.push_back(
        blocked(prefix + "w2", {ffn, h}, "Shard(0) over tp, Replicate over dp", p, t, 1, tp_row));
    all.push_back(replicated(prefix + "b2", {h}, p));
  }
  all.push_back(blocked("coordinates", {p, 2}, "one row per rank", p, p, 1, own_row));
  all.push_back(blocked("tp group", {p, p}, "one row per rank", p, p, 1, own_row));
  all.push_back(blocked("dp group", {p, p}, "one row per rank", p, p, 1, own_row));
  return all;
}

// ---- The reference

/// Rows [first, first + count) of the matrix `a`.
HostArray rows_of(const HostArray& a, std::int64_t first, std::int64_t count) {
  const std::int64_t cols = a.extents.at(1);
  return {{count, cols}, a.block({first, count, 0, cols})};
}

/// `a` with every element times `factor`.
HostArray scaled(HostArray a, double factor) {
  for (double& v : a.values) v *= factor;
  return a;
}

/// The single-device MLP's output and parameter gradients on the tokens `x`, from in's dy.
verify::HostArrays mlp_outputs(const HostArray& x, const verify::HostArrays& in) {
  const ReferenceMlp r = reference_mlp(verify::to_reference_matrix<double>(x), in);
  const std::int64_t h = kShape.h, ffn = kShape.ffn();
  return {{"y", verify::to_host_array(r.y, x.extents)},
          {"d_w1", verify::to_host_array(r.dw1, {h, ffn})},
          {"d_b1", verify::to_host_array(r.db1, {ffn})},
          {"d_w2", verify::to_host_array(r.dw2, {ffn, h})},
          {"d_b2", verify::to_host_array(r.db2, {h})}};
}

/// The loss is a mean over tokens. in's dy holds each token's own gradient g; the gradient of
/// the mean over the global batch is dY = g / m, and replica d's, the mean over its own m/D
/// tokens, is D g / m on its rows.
struct Reference {
  verify::HostArrays in;                     ///< x, w1, b1, w2, b2, and g as "dy"
  HostArray local_dy;                        ///< every replica's dY, D g / m, as one [m, h]
  verify::HostArrays whole;                  ///< y and the gradients of the global mean
  std::vector<verify::HostArrays> replicas;  ///< per replica: the gradients of its own mean
};

Reference make_reference(const Mesh& mesh) {
  Reference ref;
  ref.in = verify::make_inputs(kShape, input_seed(14), Workload::linear_pair, verify::Values::real);
  const std::int64_t m = kShape.tokens(), rows = m / mesh.d;
  verify::HostArrays global = ref.in;
  global["dy"] = scaled(ref.in.at("dy"), 1.0 / static_cast<double>(m));
  ref.whole = mlp_outputs(ref.in.at("x"), global);
  ref.local_dy = scaled(ref.in.at("dy"), mesh.d / static_cast<double>(m));
  for (int d = 0; d < mesh.d; ++d) {
    verify::HostArrays local = ref.in;
    local["dy"] = rows_of(ref.local_dy, d * rows, rows);
    ref.replicas.push_back(mlp_outputs(rows_of(ref.in.at("x"), d * rows, rows), local));
  }
  return ref;
}

/// What the lesson's parts share.
struct Setting {
  Mesh mesh;
  std::vector<TensorPlacement> placements;
  Reference ref;

  const TensorPlacement& place(std::string_view name) const {
    return find_placement(placements, name);
  }
};

/// One rank's row as a [1, n] tensor on the lesson's device.
Tensor row_tensor(Lesson& lesson, const std::vector<double>& values) {
  Tensor t = lesson.device().empty({1, static_cast<std::int64_t>(values.size())}, DType::f64);
  lesson.device().upload(values, t);
  return t;
}

/// The 1D MLP (the library's Mlp1D) of this rank's replica on `tp`, from its parameter shards.
tp1d::Mlp1D replica_mlp(Lesson& lesson, const Setting& s, Comm& tp) {
  TensorMap parameters;
  for (const char* name : {"w1", "b1", "w2", "b2"}) {
    parameters.emplace(name, lesson.shard(s.ref.in.at(name), s.place(name)));
  }
  return tp1d::Mlp1D(lesson.device(), tp, parameters, Activation::gelu);
}

// ---- Part 1: the mesh and its groups

/// A group as a row of the membership table: entry q is 1 + world rank q's place in the
/// group, 0 where q is not in it.
std::vector<double> membership_row(const std::vector<int>& members, int p) {
  std::vector<double> row(static_cast<std::size_t>(p), 0.0);
  for (std::size_t k = 0; k < members.size(); ++k) {
    row.at(static_cast<std::size_t>(members[k])) = static_cast<double>(k + 1);
  }
  return row;
}

/// The world ranks of one rank's group from its membership row, in the group's order.
std::vector<int> members_from_row(const double* row, int p) {
  std::vector<std::pair<double, int>> placed;
  for (int q = 0; q < p; ++q) {
    if (row[q] > 0) placed.emplace_back(row[q], q);
  }
  std::sort(placed.begin(), placed.end());
  std::vector<int> members;
  for (const auto& [place, q] : placed) members.push_back(q);
  return members;
}

/// The world ranks of `group`, in its order, as this rank's membership row: each member's
/// world rank, all-gathered over the group.
std::vector<double> members_of(Lesson& lesson, Comm& group) {
  Device& device = lesson.device();
  Tensor mine = device.empty({1}, DType::f64);
  device.fill(mine, lesson.rank());
  Tensor all = device.empty({group.size()}, DType::f64);
  group.all_gather(mine, all);
  std::vector<double> ranks(static_cast<std::size_t>(group.size()));
  device.download(all, ranks);
  std::vector<int> members;
  for (double r : ranks) members.push_back(static_cast<int>(r));
  return membership_row(members, lesson.size());
}

/// The table of every rank's row `row(r)`, [p, n].
HostArray table(int p, const std::function<std::vector<double>(int)>& row) {
  HostArray a{{p, 0}, {}};
  for (int r = 0; r < p; ++r) {
    const std::vector<double> values = row(r);
    a.extents[1] = static_cast<std::int64_t>(values.size());
    a.values.insert(a.values.end(), values.begin(), values.end());
  }
  return a;
}

/// Why the exercise's groups of one kind ("TP" or "DP") are wrong, from every rank's
/// membership row (`got`, [p, p] in rank order): the other kind's groups, the groups of the
/// mesh numbered DP index fastest, or else the first wrong rank's group and the right one.
/// Empty when every rank's group is right.
std::string explain_groups(const Mesh& mesh, const std::vector<double>& got, bool tp) {
  using Groups = std::function<std::vector<int>(int)>;
  const auto all_are = [&](const Groups& groups) {
    for (int r = 0; r < mesh.p; ++r) {
      if (members_from_row(&got[static_cast<std::size_t>(r * mesh.p)], mesh.p) != groups(r)) {
        return false;
      }
    }
    return true;
  };
  const Groups right = [&](int r) { return tp ? mesh.tp_group(r) : mesh.dp_group(r); };
  const Groups other = [&](int r) { return tp ? mesh.dp_group(r) : mesh.tp_group(r); };
  const Groups flipped = [&](int r) {
    return tp ? mesh.dp_fastest_tp_group(r) : mesh.dp_fastest_dp_group(r);
  };
  if (all_are(right)) return {};
  const std::string rule =
      tp ? fmt::format(
               "A TP group is the t = {} consecutive ranks of one replica: colour rank / t "
               "(dp_index), key rank % t (tp_rank); rank {}'s is {}, inside one node",
               mesh.t, kExampleRank, ranks_text(mesh.tp_group(kExampleRank)))
         : fmt::format(
               "A DP group is the D = {} ranks with one tp_rank, the replicas of one "
               "shard: colour rank % t (tp_rank), key rank / t (dp_index); rank {}'s "
               "is {}",
               mesh.d, kExampleRank, ranks_text(mesh.dp_group(kExampleRank)));
  if (all_are(other)) {
    return fmt::format(
        "your {0} groups are the {1} groups: split with colour {2}, they hold {3} (rank {4}'s: "
        "{5}). {6}",
        tp ? "TP" : "DP", tp ? "DP" : "TP", tp ? "rank % t (tp_rank)" : "rank / t (dp_index)",
        tp ? "the ranks of one tp_rank, strided t apart" : "the t ranks of one replica",
        kExampleRank, ranks_text(other(kExampleRank)), rule);
  }
  if (all_are(flipped)) {
    return fmt::format(
        "your {} groups number the mesh with the DP index varying fastest (rank = tp_rank x D + "
        "dp_index; rank {}'s: {}); Megatron's order varies the TP rank fastest, rank = dp_index "
        "x t + tp_rank. {}",
        tp ? "TP" : "DP", kExampleRank, ranks_text(flipped(kExampleRank)), rule);
  }
  for (int r = 0;; ++r) {
    const std::vector<int> members =
        members_from_row(&got[static_cast<std::size_t>(r * mesh.p)], mesh.p);
    if (members == right(r)) continue;
    return fmt::format("rank {}'s {} group is {}, in that order; it should be {}. {}", r,
                       tp ? "TP" : "DP", ranks_text(members), ranks_text(right(r)), rule);
  }
}

/// Why the exercise's coordinates are wrong, from every rank's (dp_index, tp_rank) (`got`, [p,
/// 2] in rank order); empty when all are right.
std::string explain_coordinates(const Mesh& mesh, const std::vector<double>& got) {
  const auto all_are = [&](const std::function<std::pair<int, int>(int)>& coordinates) {
    for (int r = 0; r < mesh.p; ++r) {
      const auto [dp, tp] = coordinates(r);
      if (got[2 * r] != dp || got[2 * r + 1] != tp) return false;
    }
    return true;
  };
  const std::string rule = fmt::format(
      "from rank = dp_index x t + tp_rank: dp_index = rank / t (which replica), tp_rank = rank % "
      "t (the place in its TP group), with t = {}",
      mesh.t);
  if (all_are([&](int r) { return std::pair{mesh.dp_index(r), mesh.tp_rank(r)}; })) return {};
  if (all_are([&](int r) { return std::pair{mesh.tp_rank(r), mesh.dp_index(r)}; })) {
    return "dp_index and tp_rank are swapped: " + rule;
  }
  if (all_are([&](int r) { return std::pair{r % mesh.d, r / mesh.d}; })) {
    return "these coordinates number the mesh with the DP index varying fastest (dp_index = "
           "rank % D); Megatron's order varies the TP rank fastest: " +
           rule;
  }
  for (int r = 0;; ++r) {
    if (got[2 * r] == mesh.dp_index(r) && got[2 * r + 1] == mesh.tp_rank(r)) continue;
    return fmt::format("rank {} returned (dp_index, tp_rank) = ({:g}, {:g}); it is ({}, {}), {}", r,
                       got[2 * r], got[2 * r + 1], mesh.dp_index(r), mesh.tp_rank(r), rule);
  }
}

/// The exercise's mesh: its coordinates and the members of its two groups on every rank, and
/// its replica's forward on the TP group it built, Y against the reference's rows of the
/// replica's sequences.
void check_groups(Lesson& lesson, const Setting& s) {
  const Mesh& mesh = s.mesh;
  MeshGroups groups = build_mesh_groups(lesson.world(), mesh.t);
  if (!groups.tp || !groups.dp) {
    throw UsageError("build_mesh_groups returned no TP or no DP group: split both from world");
  }
  const Tensor coordinates = row_tensor(
      lesson, {static_cast<double>(groups.dp_index), static_cast<double>(groups.tp_rank)});
  const Tensor tp_members = row_tensor(lesson, members_of(lesson, *groups.tp));
  const Tensor dp_members = row_tensor(lesson, members_of(lesson, *groups.dp));
  tp1d::Mlp1D mlp = replica_mlp(lesson, s, *groups.tp);
  const Tensor y = mlp.forward(lesson.shard(s.ref.in.at("x"), s.place("x")));

  const auto coordinates_of = [&](int r) {
    return std::vector<double>{static_cast<double>(mesh.dp_index(r)),
                               static_cast<double>(mesh.tp_rank(r))};
  };
  const std::vector<double>& got_coordinates =
      lesson.expect("coordinates", table(mesh.p, coordinates_of), s.place("coordinates"),
                    coordinates, exact_tolerance());
  const std::vector<double>& got_tp = lesson.expect(
      "tp group", table(mesh.p, [&](int r) { return membership_row(mesh.tp_group(r), mesh.p); }),
      s.place("tp group"), tp_members, exact_tolerance());
  const std::vector<double>& got_dp = lesson.expect(
      "dp group", table(mesh.p, [&](int r) { return membership_row(mesh.dp_group(r), mesh.p); }),
      s.place("dp group"), dp_members, exact_tolerance());
  lesson.expect("y", s.ref.whole.at("y"), s.place("y"), y,
                verify::tolerance_for(DType::f64, false));
  const auto explain = [&](const char* name, const std::string& text) {
    if (!text.empty()) lesson.explain(name, text);  // the same on every rank: from all of them
  };
  explain("coordinates", explain_coordinates(mesh, from_every_rank(lesson, got_coordinates)));
  explain("tp group", explain_groups(mesh, from_every_rank(lesson, got_tp), true));
  explain("dp group", explain_groups(mesh, from_every_rank(lesson, got_dp), false));
  lesson.explain("y",
                 "Y is the replica's MLP forward on your TP group: g's all-reduce must add "
                 "the t partial products of one replica's t shards of W2");
  lesson.report("the mesh: coordinates, the TP and DP groups, and the forward on the TP group");
}

// ---- Parts 2 and 3: the DP average

/// What one rank holds of each gradient under one candidate answer: the right one, or a
/// classic mistake with its teaching text.
struct Candidate {
  std::string text;                         ///< empty for the right answer
  std::vector<std::vector<double>> values;  ///< per gradient of kGradients, this rank's block
};

/// `a` + `b` element by element, times `factor`.
std::vector<double> combined(std::vector<double> a, const std::vector<double>& b, double factor) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = (a[i] + b[i]) * factor;
  return a;
}

/// This rank's block of gradient `name` summed over the ranks `over` (each holding its own
/// block of its own replica's gradient), times `factor`: what an all-reduce over those ranks,
/// then a division, leaves here.
std::vector<double> summed_over(const Setting& s, const std::string& name,
                                const std::vector<int>& over, double factor) {
  const TensorPlacement& place = s.place(name);
  std::vector<double> sum(place.blocks.at(0).rows * place.blocks.at(0).cols, 0.0);
  for (int q : over) {
    const HostArray& local = s.ref.replicas.at(s.mesh.dp_index(q)).at(name);
    sum = combined(std::move(sum), local.block(place.blocks.at(q)), 1.0);
  }
  for (double& v : sum) v *= factor;
  return sum;
}

/// ", divided by D = 4", or nothing for a factor of 1.
std::string divided_text(const Mesh& mesh, int divisor) {
  if (divisor == 1) return {};
  const char* what = divisor == mesh.p ? "p" : divisor == mesh.d ? "D" : "t";
  return fmt::format(", divided by {} = {}", what, divisor);
}

/// The candidate answers for one rank, each added as the sum over some ranks times a factor.
class Candidates {
 public:
  Candidates(const Setting& s, int rank) : s_(s), rank_(rank) {}

  /// The answer `text` names: rank's block summed over the ranks `over`, times `factor`.
  void add(std::string text, const std::vector<int>& over, double factor) {
    Candidate c{std::move(text), {}};
    for (const std::string& name : kGradients) {
      c.values.push_back(summed_over(s_, name, over, factor));
    }
    all_.push_back(std::move(c));
  }
  int rank() const { return rank_; }
  std::vector<Candidate> take() { return std::move(all_); }

 private:
  const Setting& s_;
  int rank_;
  std::vector<Candidate> all_;
};

/// The sum over the right group with the wrong division, or no sum at all.
void add_wrong_divisions(Candidates& c, const Mesh& mesh) {
  const std::string dp_group = ranks_text(mesh.dp_group(kExampleRank));
  const int sequences = kShape.b / mesh.d;
  c.add(fmt::format("each replica kept its own gradient, the mean over its own b/D = {} {} only: "
                    "nothing was summed over the DP group, so the D = {} replicas of a shard "
                    "differ, and their weights would drift apart at the first optimizer step. "
                    "All-reduce each gradient over the DP group (rank {}'s: {}) and divide by "
                    "D = {}",
                    sequences, sequences == 1 ? "sequence" : "sequences", mesh.d, kExampleRank,
                    dp_group, mesh.d),
        {c.rank()}, 1.0);
  c.add(fmt::format("this is the sum over the DP group without the division: D = {} times the "
                    "gradient. The all-reduce adds the D replicas' means; divide by D to make "
                    "it their mean, the mean over the global batch",
                    mesh.d),
        mesh.dp_group(c.rank()), 1.0);
  for (int divisor : {mesh.p, mesh.t}) {
    if (divisor == mesh.d) continue;  // t = D: dividing by t is right by accident
    c.add(fmt::format("this is the sum over the DP group divided by {} = {}, {:g} times the "
                      "gradient: the mean is over the D = {} replicas; divide by D = "
                      "mesh.dp->size()",
                      divisor == mesh.p ? "the world size p" : "the TP group's size t", divisor,
                      static_cast<double>(mesh.d) / divisor, mesh.d),
          mesh.dp_group(c.rank()), 1.0 / divisor);
  }
}

/// The sum over the TP group, or over the world, with any division.
void add_wrong_groups(Candidates& c, const Mesh& mesh) {
  const auto text = [&](const std::string& group, const std::string& why, int divisor) {
    return fmt::format(
        "this is the sum over {}{}; the gradient needs the sum over the DP group (rank {}'s: {}), "
        "divided by D = {}: {}",
        group, divided_text(mesh, divisor), kExampleRank, ranks_text(mesh.dp_group(kExampleRank)),
        mesh.d, why);
  };
  std::vector<int> divisors = {mesh.d, 1, mesh.p};
  if (mesh.t != mesh.d) divisors.push_back(mesh.t);
  for (int divisor : divisors) {
    c.add(text(fmt::format("the TP group (rank {}'s: {})", kExampleRank,
                           ranks_text(mesh.tp_group(kExampleRank))),
               "the TP group's ranks hold different shards of one replica, the DP group's the "
               "same shard on other sequences of the batch",
               divisor),
          mesh.tp_group(c.rank()), 1.0 / divisor);
    c.add(text(fmt::format("every rank (the world, p = {})", mesh.p),
               "the ranks of a TP group hold different shards, which are never added", divisor),
          Mesh::run(0, 1, mesh.p), 1.0 / divisor);
  }
}

/// The right average first, then each classic mistake, for this rank.
std::vector<Candidate> candidates(const Setting& s, int rank) {
  Candidates c(s, rank);
  c.add({}, s.mesh.dp_group(rank), 1.0 / s.mesh.d);
  add_wrong_divisions(c, s.mesh);
  add_wrong_groups(c, s.mesh);
  return c.take();
}

/// Whether `got` is `want` to within round-off of the gradient's scale.
bool close(const std::vector<double>& got, const std::vector<double>& want, double scale) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(std::abs(got[i] - want[i]) <= 1e-9 * scale)) return false;
  }
  return true;
}

/// Names the classic mistake the exercise's gradients (`got`, per gradient of kGradients, as
/// each rank holds them) are, when one candidate matches every gradient on every rank: the
/// note goes under each gradient. Collective.
void explain_average(Lesson& lesson, const Setting& s,
                     const std::vector<const std::vector<double>*>& got) {
  for (const Candidate& c : candidates(s, lesson.rank())) {
    bool mine = true;
    for (std::size_t k = 0; k < kGradients.size(); ++k) {
      const double scale = std::max(verify::rms(s.ref.whole.at(kGradients[k]).values), 1e-300);
      mine = mine && close(*got[k], c.values[k], scale);
    }
    if (!lesson.on_every_rank(mine)) continue;
    for (const std::string& name : kGradients) {
      if (!c.text.empty()) lesson.explain(name, c.text);
    }
    return;
  }
}

/// [all-reduce calls over the group "dp", their elements N, calls of anything else].
std::vector<double> dp_pattern(const std::vector<CollectiveCount>& counts) {
  std::vector<double> pattern(3, 0.0);
  for (const CollectiveCount& c : counts) {
    if (c.collective == Collective::all_reduce && c.group == "dp") {
      pattern[0] += static_cast<double>(c.calls);
      pattern[1] += static_cast<double>(c.elements);
    } else {
      pattern[2] += static_cast<double>(c.calls);
    }
  }
  return pattern;
}

/// What the counters saw, "4 all_reduce over \"tp\" (2 ranks)", or "no collective".
std::string counted_text(const std::vector<CollectiveCount>& counts) {
  std::vector<std::string> seen;
  for (const CollectiveCount& c : counts) {
    seen.push_back(fmt::format("{} {} over \"{}\" ({} ranks)", c.calls,
                               collective_name(c.collective), c.group, c.group_size));
  }
  return seen.empty() ? "no collective" : fmt::format("{}", fmt::join(seen, ", "));
}

/// The check's own groups (the solution's split), so that the average is checked whatever
/// the groups part found.
MeshGroups check_mesh_groups(Comm& world, const Mesh& mesh) {
  MeshGroups groups;
  groups.dp_index = mesh.dp_index(world.rank());
  groups.tp_rank = mesh.tp_rank(world.rank());
  groups.tp = world.split(groups.dp_index, groups.tp_rank, "tp");
  groups.dp = world.split(groups.tp_rank, groups.dp_index, "dp");
  return groups;
}

/// How the exercise averages: average_gradients or average_gradients_bucketed.
using Average = void (*)(Device&, MeshGroups&, TensorMap&);

/// The library's 1D forward and backward of each replica on its own sequences, then the
/// exercise's `average`: every gradient against the reference's on the whole batch, and its
/// collectives, `calls` all-reduces over "dp" of every gradient element and nothing else.
void check_average(Lesson& lesson, const Setting& s, Average average, double calls,
                   const std::string& title) {
  MeshGroups groups = check_mesh_groups(lesson.world(), s.mesh);
  tp1d::Mlp1D mlp = replica_mlp(lesson, s, *groups.tp);
  mlp.forward(lesson.shard(s.ref.in.at("x"), s.place("x")));
  mlp.backward(lesson.shard(s.ref.local_dy, s.place("dy")));
  TensorMap gradients;
  mlp.collect_gradients(gradients);
  double elements = 0;
  for (const auto& [name, grad] : gradients) elements += static_cast<double>(grad.numel());

  CommCounters& counters = lesson.world().counters();
  counters.reset();
  average(lesson.device(), groups, gradients);
  const std::vector<CollectiveCount> counts = lesson.counted(counters.snapshot());
  std::vector<const std::vector<double>*> got;
  for (const std::string& name : kGradients) {
    got.push_back(&lesson.expect(name, s.ref.whole.at(name), s.place(name), gradients.at(name),
                                 verify::tolerance_for(DType::f64, false)));
  }
  Tensor measured = lesson.device().empty({3}, DType::f64);
  lesson.device().upload(dp_pattern(counts), measured);
  const TensorPlacement pattern = replicated("dp comm", {3}, lesson.size());
  lesson.expect_measured("dp comm", host_array({3}, {calls, elements, 0.0}), pattern, measured,
                         exact_tolerance());
  lesson.explain(
      "dp comm",
      fmt::format("[all-reduce calls over the DP group \"dp\", their elements N, other "
                  "calls] per rank: the step is {:g} {} over \"dp\" (D = {} ranks) of "
                  "N = {:g} gradient elements in all, and no other collective; yours: {}",
                  calls, calls == 1 ? "all-reduce" : "all-reduces", s.mesh.d, elements,
                  counted_text(counts)));
  explain_average(lesson, s, got);
  lesson.report(title);
}

// ---- The lesson

/// Every rank's coordinates, groups and local shard shapes.
void print_mesh(const Lesson& lesson, const Setting& s) {
  if (!lesson.speaks()) return;
  const Mesh& mesh = s.mesh;
  fmt::print(
      "the mesh the check expects: D = {} replicas x t = {} ranks of tensor parallelism, rank = "
      "dp_index x t + tp_rank\n",
      mesh.d, mesh.t);
  for (int r = 0; r < mesh.p; ++r) {
    std::vector<std::string> shapes;
    for (const char* name : {"x", "w1", "b1", "w2", "b2"}) {
      shapes.push_back(fmt::format("{} {}", name, to_string(s.place(name).local_extents(r))));
    }
    fmt::print("  rank {}: (dp, tp) = ({}, {}); TP group {}; DP group {}; holds {}\n", r,
               mesh.dp_index(r), mesh.tp_rank(r), ranks_text(mesh.tp_group(r)),
               ranks_text(mesh.dp_group(r)), fmt::join(shapes, ", "));
  }
  std::fflush(stdout);
}

void run(Lesson& lesson) {
  const int p = lesson.size();
  require_world_size(lesson, p == 4 || p == 8,
                     fmt::format("lesson 14 runs D replicas of a 1D group of t = {} ranks, p = D "
                                 "t, each replica on b/D of the batch of {} sequences",
                                 kTensorParallel, kShape.b),
                     {4, 8});
  Setting s;
  s.mesh = {p, kTensorParallel, p / kTensorParallel};
  s.placements = mesh_placements(s.mesh);
  s.ref = make_reference(s.mesh);
  lesson.print_shards({{"X", "[m_D, h]", &s.place("x")},
                       {"W1", "[h, 4h_T]", &s.place("w1")},
                       {"b1", "[4h_T]", &s.place("b1")},
                       {"W2", "[4h_T, h]", &s.place("w2")},
                       {"b2", "[h]", &s.place("b2")},
                       {"Y", "[m_D, h]", &s.place("y")}});
  print_mesh(lesson, s);
  lesson.part("groups", [&] { check_groups(lesson, s); });
  lesson.part("average", [&] {
    check_average(lesson, s, average_gradients, static_cast<double>(kGradients.size()),
                  "DP average, one all-reduce per gradient, against the whole batch (f64 "
                  "tolerance)");
  });
  lesson.part("bucket", [&] {
    check_average(lesson, s, average_gradients_bucketed, 1,
                  "DP average, one bucket, against the whole batch (f64 tolerance)");
  });
}

}  // namespace
}  // namespace tplab::lessons::data_parallel

int main() {
  return tplab::lessons::run_lesson("lesson 14", tplab::lessons::data_parallel::run);
}
