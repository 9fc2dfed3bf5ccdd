// Reliability under mpiexec: random valid configurations of every scheme all agree with the
// reference, random invalid ones are refused alike on every rank, and runs are deterministic.
//
// The fuzz test draws a fifth of its configurations with a token shard that starts inside a
// sequence (1d-sp, 3D), and a quarter with attention scores past exp's overflow point. It is
// bounded (TPLAB_FUZZ_COUNT configurations, default 200, and 150 s) and
// prints its seed (TPLAB_FUZZ_SEED to replay one). Each configuration runs on the first p ranks
// of the world, split off for it; the other ranks wait.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "harness.hpp"
#include "problem.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"
#include "tensor_check.hpp"

namespace tplab::verify {
namespace {

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

/// The same draw on every rank: all ranks seed alike and draw the same sequence.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : engine_(seed) {}
  int between(int lo, int hi) { return lo + static_cast<int>(engine_() % (hi - lo + 1)); }
  template <typename T>
  const T& pick(const std::vector<T>& from) {
    return from[static_cast<std::size_t>(between(0, static_cast<int>(from.size()) - 1))];
  }

 private:
  std::mt19937_64 engine_;
};

/// A small shape: b sequences of s tokens, `heads` heads of `head_dim` features each, with a
/// hidden size of at least kMinHidden (as parse_block_shape demands). Half the draws are a few
/// long sequences: 1 to 3 of 8, 12 or 16 tokens, an even number of heads of 2 or 4 features,
/// which 1d-sp splits at 2 ranks and 3D at 8 (4 token blocks), so that their token shards start
/// inside a sequence (unless the shards are whole sequences), often shorter than one. The rest
/// are many short sequences of any head count.
BlockShape draw_shape(Draws& d) {
  if (d.between(0, 1) == 1) {
    const std::int64_t heads = d.pick<std::int64_t>({2, 4, 6, 8, 12});
    std::int64_t head_dim = 2 * d.between(1, 2);
    while (heads * head_dim < kMinHidden) head_dim += 2;
    return {d.between(1, 3), 4 * d.between(2, 4), heads * head_dim, heads};
  }
  const std::int64_t heads = d.pick<std::int64_t>({1, 2, 3, 4, 6, 8, 9, 12});
  std::int64_t head_dim = d.between(1, 4);
  while (heads * head_dim < kMinHidden) ++head_dim;
  return {d.between(1, 12), d.between(1, 9), heads * head_dim, heads};
}

/// True when some rank's token shard of x starts inside a sequence.
bool starts_mid_sequence(const RunConfig& c, int world_size) {
  const auto placements =
      make_scheme(c.scheme, c.options)->placements(world_size, c.shape, Workload::block);
  for (const BlockRange& b : find_placement(placements, "x").blocks) {
    if (b.row0 % c.shape.s != 0) return true;
  }
  return false;
}

class Reliability : public testing::Test {
 protected:
  Reliability() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}
  CpuDevice device;
  std::unique_ptr<Comm> world;
};

TEST_F(Reliability, RandomValidConfigurationsAllAgree) {
  const auto seed = env_or("TPLAB_FUZZ_SEED", static_cast<std::uint64_t>(std::time(nullptr)));
  const auto count = static_cast<int>(env_or("TPLAB_FUZZ_COUNT", 200));
  // Every rank uses rank 0's seed, so all draw the same configurations.
  CpuDevice host;
  Tensor shared = host.empty({1}, DType::f64);
  shared.data_as<double>()[0] = static_cast<double>(seed % (1ull << 52));
  world->broadcast(shared, 0);
  const auto run_seed = static_cast<std::uint64_t>(shared.data_as<double>()[0]);
  if (world->rank() == 0) {
    std::printf("fuzz seed %llu (replay: TPLAB_FUZZ_SEED=%llu)\n",
                static_cast<unsigned long long>(run_seed),
                static_cast<unsigned long long>(run_seed));
  }
  Draws d(run_seed);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(150);
  std::map<std::string, int> per_scheme;
  int ran = 0, mid_sequence = 0;
  while (ran < count) {
    RunConfig c;
    c.scheme = d.pick(scheme_names());
    c.options.depth = c.scheme == "2.5d" ? d.between(0, 2) : 0;
    c.options.regather = d.between(0, 1) == 1;
    c.options.overlap = d.between(0, 1) == 1;
    c.shape = draw_shape(d);
    c.dtype = d.between(0, 1) == 0 ? DType::f64 : DType::f32;
    c.exact = d.between(0, 3) == 0;
    c.large_scores = d.between(0, 3) == 0;
    // x far from zero where run_verification takes it: f64 and h >= kShiftedInputMinHidden.
    c.shifted_input = !c.large_scores && d.between(0, 1) == 1 && c.dtype == DType::f64 &&
                      c.shape.h >= kShiftedInputMinHidden;
    c.seed = static_cast<std::uint64_t>(d.between(1, 1000000));
    const auto sizes = make_scheme(c.scheme, c.options)->usable_world_sizes(c.shape, world->size());
    if (sizes.empty()) continue;
    // Half the time the largest world that fits: more ranks cut the tokens into shorter shards.
    const int p = d.between(0, 1) == 1 ? sizes.back() : d.pick(sizes);
    const bool mine = world->rank() < p;
    auto sub = world->split(mine ? 0 : 1, world->rank(), "fuzz");
    if (mine) {
      const RunResult r = run_verification(*sub, device, c);
      EXPECT_TRUE(r.pass) << "configuration " << ran << " of seed " << run_seed << ": " << c.scheme
                          << " np=" << p << " " << to_string(c.shape) << " " << dtype_name(c.dtype)
                          << (c.exact ? " exact" : "")
                          << (c.shifted_input && !c.exact ? " shifted" : "")
                          << (c.large_scores && !c.exact ? " large-scores" : "")
                          << " depth=" << c.options.depth << (c.options.overlap ? " overlap" : "")
                          << " seed=" << c.seed;
    }
    ++per_scheme[c.scheme];
    if (starts_mid_sequence(c, p)) ++mid_sequence;
    ++ran;
    // Rank 0 alone reads the clock and tells the others, so all leave the loop together.
    Tensor stop = host.empty({1}, DType::f64);
    stop.data_as<double>()[0] = std::chrono::steady_clock::now() > deadline ? 1.0 : 0.0;
    world->broadcast(stop, 0);
    if (stop.data_as<double>()[0] != 0.0) break;
  }
  if (world->rank() == 0) {
    for (const auto& [scheme, n] : per_scheme)
      std::printf("  %s: %d configurations\n", scheme.c_str(), n);
  }
  if (world->rank() == 0) {
    std::printf("  %d of %d with a token shard that starts mid-sequence\n", mid_sequence, ran);
  }
  EXPECT_GE(ran, std::min(count, 200)) << "the time limit cut the run short";
  EXPECT_GE(8 * mid_sequence, ran) << "too few token shards start mid-sequence";
}

TEST_F(Reliability, RandomInvalidConfigurationsAreRefusedAlikeOnEveryRank) {
  Draws d(env_or("TPLAB_FUZZ_SEED", 12345) + 1);
  int refused = 0;
  for (int attempt = 0; attempt < 400 && refused < 100; ++attempt) {
    RunConfig c;
    c.scheme = d.pick(scheme_names());
    c.shape = draw_shape(d);
    // Break it sometimes: h not divisible by the heads, too small a hidden size, a zero size.
    c.shape.h = c.shape.heads * d.between(1, 3) + d.between(0, 1);
    if (d.between(0, 5) == 0) c.shape.b = 0;
    if (shape_problem(c.shape).empty() &&
        make_scheme(c.scheme)->why_not(world->size(), c.shape).empty()) {
      continue;  // this one can run
    }
    std::string message;
    try {
      run_verification(*world, device, c);
      ADD_FAILURE() << c.scheme << " ran " << to_string(c.shape) << " on " << world->size();
    } catch (const UsageError& e) {
      message = e.what();
    }
    // Every rank must have refused with the same words.
    CpuDevice host;
    Tensor mine = host.empty({1}, DType::f64);
    mine.data_as<double>()[0] =
        static_cast<double>(std::hash<std::string>{}(message) % (1ull << 52));
    Tensor all = host.empty({world->size()}, DType::f64);
    world->all_gather(mine, all);
    for (int r = 0; r < world->size(); ++r) {
      EXPECT_EQ(all.data_as<double>()[r], mine.data_as<double>()[0]) << "rank " << r << " differs";
    }
    EXPECT_FALSE(message.empty());
    ++refused;
  }
  EXPECT_GT(refused, 20);
}

TEST_F(Reliability, TheSameRunTwiceGivesTheSameBits) {
  for (const std::string& scheme : scheme_names()) {
    RunConfig c;
    c.scheme = scheme;
    c.shape = {12, 6, 72, 12};
    // The largest world this scheme can use here, split off the test's world.
    const int p = make_scheme(scheme)->usable_world_sizes(c.shape, world->size()).back();
    const bool mine = world->rank() < p;
    auto sub = world->split(mine ? 0 : 1, world->rank(), "determinism");
    if (mine) {
      for (DType dtype : {DType::f64, DType::f32}) {
        c.dtype = dtype;
        const RunResult first = run_verification(*sub, device, c);
        const RunResult second = run_verification(*sub, device, c);
        for (std::size_t t = 0; t < first.tensors.size(); ++t) {
          EXPECT_EQ(first.tensors[t].hash, second.tensors[t].hash)
              << scheme << " np=" << p << " " << dtype_name(dtype) << " " << first.tensors[t].name;
        }
      }
    }
    world->barrier();
  }
}

}  // namespace
}  // namespace tplab::verify
