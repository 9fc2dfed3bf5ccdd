// The whole GPT's check (gpt_check.hpp), as verify runs it by default: it passes on correct
// code in every regime it reaches, and each planted mistake of the classes it exists for fails
// it where that class lives, while a check outside that regime lets the mistake through.
#include "gpt_check.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "attention_scores.hpp"
#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "faulty_comm.hpp"
#include "planted_vocabulary.hpp"

namespace tplab::train {
namespace {

/// verify's GPT run: a vocabulary of 67 ids (a prime: padded on more than one part), two
/// blocks, dropout 0.1, and the logits offset to twice exp's overflow point in `dtype`
/// (`past_overflow`) or left near 0.
TrainConfig gpt_config(const std::string& scheme, DType dtype, bool past_overflow,
                       BlockShape block = {12, 6, 72, 12}) {
  TrainConfig c;
  c.scheme = scheme;
  c.dtype = dtype;
  c.shape = {block, 67, 2};
  c.steps = 1;
  c.options.training.dropout = {0.1, 7};
  c.logit_offset = past_overflow ? 2 * verify::exp_overflow_point(dtype) : 0.0;
  return c;
}

/// The first tensor that failed, or "none".
std::string first_failure(const GptCheck& check) {
  for (const verify::TensorCheck& t : check.tensors) {
    if (!t.pass) return t.name;
  }
  return check.padding_touched.empty() ? "none" : check.padding_touched;
}

TEST(GptCheck, PassesOnEverySchemeOfThisWorldSizeInEveryRegime) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  CpuDevice device;
  const int p = world->size();
  std::vector<std::pair<std::string, BlockShape>> runs;
  if (p <= 4) runs.push_back({"1d", {12, 6, 72, 12}});
  // 3 sequences of 12 tokens: 1d-sp's shards start mid-sequence at 2 and 4 ranks, 3D's at 8
  if (p == 2 || p == 4) runs.push_back({"1d-sp", {3, 12, 72, 12}});
  if (p == 4) runs.push_back({"2d", {12, 6, 72, 12}});
  if (p == 8) runs.push_back({"3d", {3, 12, 72, 12}});
  for (const auto& [scheme, block] : runs) {
    for (DType dtype : {DType::f64, DType::f32}) {
      for (bool past_overflow : {false, true}) {
        const GptCheck check =
            check_gpt(*world, device, gpt_config(scheme, dtype, past_overflow, block));
        EXPECT_TRUE(check.pass) << scheme << " " << dtype_name(dtype) << " offset " << past_overflow
                                << ": " << first_failure(check);
        EXPECT_EQ(check.tensors.size(), 38u) << "the loss and 37 gradients";
      }
    }
  }
}

/// The planted mistakes run on 1D, at 1 to 4 ranks.
constexpr int kPlantedRanks = 4;

TEST(GptCheck, AnUnshiftedCrossEntropyFailsPastTheOverflowPointOnly) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() > kPlantedRanks) GTEST_SKIP() << "planted on 1D at 1 to 4 ranks";
  CpuDevice device(families_with<UnshiftedCrossEntropy>());
  for (DType dtype : {DType::f64, DType::f32}) {
    EXPECT_TRUE(check_gpt(*world, device, gpt_config("1d", dtype, false)).pass)
        << dtype_name(dtype) << ": logits near 0 hide it";
    const GptCheck past = check_gpt(*world, device, gpt_config("1d", dtype, true));
    EXPECT_FALSE(past.pass) << dtype_name(dtype);
    EXPECT_GT(past.tensors.front().nonfinite, 0) << "the loss overflows";
  }
}

TEST(GptCheck, AMaximumReducedAsASumFailsPastTheOverflowPointOnly) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() == 1 || world->size() > kPlantedRanks) {
    GTEST_SKIP() << "planted on 1D at 2 to 4 ranks (one rank holds the whole vocabulary)";
  }
  CpuDevice device;
  verify::FaultyComm planted(*world,
                             {"tp", 0, Collective::all_reduce, verify::Fault::Action::max_as_sum});
  for (DType dtype : {DType::f64, DType::f32}) {
    // the shift is the sum of the parts' maxima: exact while exp(logit - shift) stays normal
    EXPECT_TRUE(check_gpt(planted, device, gpt_config("1d", dtype, false)).pass)
        << dtype_name(dtype) << ": logits near 0 hide it";
    EXPECT_FALSE(check_gpt(planted, device, gpt_config("1d", dtype, true)).pass)
        << dtype_name(dtype);
  }
}

TEST(GptCheck, PaddedIdsThatTakePartFail) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() == 1 || world->size() > kPlantedRanks) {
    GTEST_SKIP() << "planted on 1D at 2 to 4 ranks (on one part, 67 ids need no padding)";
  }
  CpuDevice device(families_with<UnmaskedPadding>());
  const GptCheck check = check_gpt(*world, device, gpt_config("1d", DType::f64, false));
  EXPECT_FALSE(check.pass);
  EXPECT_NE(check.padding_touched, "") << "a padded id's gradient is not 0";
  EXPECT_FALSE(check.tensors.front().pass) << "the loss counts the padded ids";
}

TEST(GptCheck, AReplicaMeanWrittenForTwoReplicasFailsAtThree) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() != 2 && world->size() != 3) GTEST_SKIP() << "D = 2 and 3 replicas of t = 1";
  CpuDevice device;
  verify::FaultyComm planted(*world,
                             {"dp", 0, Collective::all_reduce, verify::Fault::Action::size_two});
  TrainConfig c = gpt_config("1d", DType::f64, false);
  c.options.dp = world->size();
  const GptCheck check = check_gpt(planted, device, c);
  if (world->size() == 2) {
    EXPECT_TRUE(check.pass) << "right at two replicas: " << first_failure(check);
  } else {
    EXPECT_FALSE(check.pass) << "three replicas' mean divided by 2";
  }
  EXPECT_TRUE(check.tensors.front().pass) << "the loss is each replica's own";
}

}  // namespace
}  // namespace tplab::train
