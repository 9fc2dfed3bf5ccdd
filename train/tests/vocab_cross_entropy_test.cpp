// The vocabulary-parallel cross-entropy alone against the reference's: the loss of every row
// and the gradient of every logit, with the vocabulary split over the world; and proof that
// leaving out either of its reductions changes the answer.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "faulty_comm.hpp"
#include "gpt/vocab_parallel_cross_entropy.hpp"
#include "tplab/reference/gpt.hpp"

namespace tplab::gpt {
namespace {

namespace ref = tplab::reference;

constexpr std::int64_t kTokens = 6;
constexpr std::int64_t kVocab = 12;  // divisible by 1, 2, 3, 4 and 6 ranks

struct Problem {
  ref::Matrix<double> logits;  // [m, V]
  std::vector<std::int64_t> targets;
};

/// Seeded logits around `offset` (a large offset makes exp overflow without the maximum).
Problem make_problem(double offset) {
  std::mt19937_64 engine(5);
  Problem p{ref::Matrix<double>(kTokens, kVocab), {}};
  for (Eigen::Index i = 0; i < p.logits.size(); ++i) {
    p.logits.data()[i] = offset + 4.0 * (static_cast<double>(engine() >> 11) * 0x1.0p-53 - 0.5);
  }
  for (std::int64_t t = 0; t < kTokens; ++t) {
    p.targets.push_back(static_cast<std::int64_t>(engine() % kVocab));
  }
  return p;
}

struct Outcome {
  double mean_loss = 0;             // this rank's rows, averaged (every rank holds all rows)
  std::vector<double> dlogits;      // this rank's [m, V/p] block
  ref::Matrix<double> ref_dlogits;  // the reference's whole gradient
  double ref_loss = 0;
};

Outcome run(Comm& group, DType dtype, const Problem& p) {
  CpuDevice device;
  const std::int64_t ids = kVocab / group.size();
  const BlockRange block{0, kTokens, group.rank() * ids, ids};
  const ref::Matrix<double> mine = p.logits.middleCols(block.col0, ids);
  Tensor logits = device.empty({kTokens, ids}, dtype);
  device.upload(std::span<const double>(mine.data(), static_cast<std::size_t>(mine.size())),
                logits);
  VocabParallelCrossEntropy loss(device, group, block, kTokens);
  Outcome o;
  for (double l : loss.forward(logits, p.targets)) o.mean_loss += l / kTokens;
  const Tensor d = loss.backward();
  o.dlogits.resize(static_cast<std::size_t>(d.numel()));
  device.download(d, o.dlogits);
  // The reference sees the logits as this rank stored them: rounded to f32 in an f32 run, so
  // that only the arithmetic differs (near 1000, f32's rounding of the inputs alone is 3e-5).
  const ref::Matrix<double> stored =
      dtype == DType::f32 ? p.logits.cast<float>().cast<double>().eval() : p.logits;
  o.ref_loss = ref::cross_entropy<double>(stored, p.targets, &o.ref_dlogits);
  return o;
}

double max_gradient_error(const Outcome& o, int rank, int size) {
  const std::int64_t ids = kVocab / size;
  double worst = 0;
  for (std::int64_t t = 0; t < kTokens; ++t) {
    for (std::int64_t c = 0; c < ids; ++c) {
      const double got = o.dlogits[static_cast<std::size_t>(t * ids + c)];
      worst = std::max(worst, std::abs(got - o.ref_dlogits(t, rank * ids + c)));
    }
  }
  return worst;
}

TEST(VocabParallelCrossEntropy, MatchesTheReference) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  // f64 differs from the reference in the order of a few sums: round-off of the loss (~3) and
  // of softmax / m (~0.1). f32 rounds logits and exp to 2^-24 relative.
  for (double offset : {0.0, 1000.0}) {
    const Problem p = make_problem(offset);
    for (DType dtype : {DType::f64, DType::f32}) {
      const double loss_rtol = dtype == DType::f64 ? 1e-14 : 1e-6;
      const double grad_atol = dtype == DType::f64 ? 1e-16 : 1e-7;
      const Outcome o = run(*world, dtype, p);
      EXPECT_NEAR(o.mean_loss, o.ref_loss, loss_rtol * std::abs(o.ref_loss))
          << dtype_name(dtype) << " offset " << offset;
      EXPECT_LE(max_gradient_error(o, world->rank(), world->size()), grad_atol)
          << dtype_name(dtype) << " offset " << offset;
    }
  }
}

TEST(VocabParallelCrossEntropy, EveryReductionIsNeeded) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() == 1) GTEST_SKIP() << "one rank holds the whole vocabulary";
  const Problem p = make_problem(0.0);
  // all-reduce 0: the row maximum; 1: the sums of exp and the target logits
  for (int dropped : {0, 1}) {
    verify::FaultyComm faulty(*world, verify::Fault{"", dropped});
    const Outcome o = run(faulty, DType::f64, p);
    const bool loss_right = std::abs(o.mean_loss - o.ref_loss) <= 1e-14 * std::abs(o.ref_loss);
    const bool grad_right = max_gradient_error(o, world->rank(), world->size()) <= 1e-16;
    // A rank whose own maximum happens to be the row's can get its rows right; the world
    // cannot. Count wrong ranks over the world.
    CpuDevice host;
    Tensor wrong = host.empty({1}, DType::f64);
    wrong.data_as<double>()[0] = loss_right && grad_right ? 0.0 : 1.0;
    world->all_reduce(wrong);
    EXPECT_GT(wrong.data_as<double>()[0], 0.0)
        << "dropping all-reduce " << dropped << " went unnoticed";
  }
}

}  // namespace
}  // namespace tplab::gpt
