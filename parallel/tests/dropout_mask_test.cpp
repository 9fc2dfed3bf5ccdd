// DropoutMask: Philox 4x32-10 against the generator's published known answers, and the mask's
// one promise: a rank's part of a global tensor gets, element for element, the mask of the whole.
#include "device/dropout_mask.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "device/cpu_device.hpp"

namespace tplab {
namespace {

struct KnownAnswer {
  Philox4x32 counter;
  std::uint32_t key0, key1;
  Philox4x32 expected;
};

// The first three are the known-answer vectors of the generator's authors (Random123's
// kat_vectors, philox4x32 with 10 rounds); the fourth was computed by an independent
// implementation, randomgen's Philox(number=4, width=32), with the counter words distinct.
TEST(Philox, KnownAnswers) {
  const KnownAnswer answers[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffff,
       0xffffffff,
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0xa4093822,
       0x299f31d0,
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
      {{{1, 0, 3, 7}}, 42, 0, {{0x92b91c8a, 0x2d8c94af, 0xf6ceb7c4, 0xe6496fb1}}},
  };
  for (const KnownAnswer& a : answers) {
    const Philox4x32 got = philox4x32_10(a.counter, a.key0, a.key1);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(got.word[w], a.expected.word[w]) << "word " << w;
  }
}

TEST(DropoutMask, DropsTheFractionAskedFor) {
  for (double p : {0.1, 0.5, 0.9}) {
    const DropoutMask mask =
        make_dropout_mask({p, 1234}, {3, 1}, DropoutSite::mlp_output, 1, 0, 1 << 18, 0);
    std::int64_t dropped = 0;
    for (std::int64_t e = 0; e < (1 << 18); ++e) dropped += mask.keeps(e) ? 0 : 1;
    const double n = 1 << 18, sigma = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(static_cast<double>(dropped), n * p, 5 * sigma) << "p = " << p;
    EXPECT_DOUBLE_EQ(mask.scale, 1 / (1 - p));
  }
}

TEST(DropoutMask, EveryPartOfTheKeyChangesTheMask) {
  const auto bits = [](const DropoutOptions& o, DropoutDraw d, DropoutSite site) {
    const DropoutMask mask = make_dropout_mask(o, d, site, 1, 0, 256, 0);
    std::vector<bool> kept;
    for (std::int64_t e = 0; e < 256; ++e) kept.push_back(mask.keeps(e));
    return kept;
  };
  const auto base = bits({0.5, 7}, {2, 1}, DropoutSite::attention_output);
  EXPECT_NE(base, bits({0.5, 8}, {2, 1}, DropoutSite::attention_output)) << "seed";
  EXPECT_NE(base, bits({0.5, 7ull + (1ull << 32)}, {2, 1}, DropoutSite::attention_output))
      << "the seed's upper half";
  EXPECT_NE(base, bits({0.5, 7}, {3, 1}, DropoutSite::attention_output)) << "step";
  EXPECT_NE(base, bits({0.5, 7}, {2, 2}, DropoutSite::attention_output)) << "layer";
  EXPECT_NE(base, bits({0.5, 7}, {2, 1}, DropoutSite::mlp_output)) << "site";
  EXPECT_EQ(base, bits({0.5, 7}, {2, 1}, DropoutSite::attention_output)) << "replayed";
}

TEST(DropoutMask, RefusesAProbabilityOutsideZeroToOne) {
  EXPECT_THROW(make_dropout_mask({1.0, 1}, {}, DropoutSite::mlp_output, 1, 0, 1, 0), InternalError);
  EXPECT_THROW(make_dropout_mask({-0.1, 1}, {}, DropoutSite::mlp_output, 1, 0, 1, 0),
               InternalError);
}

std::vector<double> ramp(std::int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1.0 + static_cast<double>(i);
  return v;
}

// The whole [b*n, s, s] probabilities dropped on one device, against every block of batches x
// heads x rows x columns dropped on its own with its offsets: the same element for element.
TEST(DropoutMask, EveryBlockOfAGlobalTensorGetsTheWholeTensorsMask) {
  CpuDevice device;
  const std::int64_t b = 2, n = 4, s = 6;
  const DropoutOptions options{0.3, 99};
  const DropoutDraw draw{5, 2};
  DropoutMask whole = make_dropout_mask(options, draw, DropoutSite::attention_probs, s, 0, s, 0);
  whole.heads_local = n;
  whole.heads_global = n;
  Tensor all = device.empty({b * n, s, s}, DType::f64);
  device.upload(ramp(b * n * s * s), all);
  device.dropout(all, whole);
  std::vector<double> expected(static_cast<std::size_t>(all.numel()));
  device.download(all, expected);

  const std::vector<double> values = ramp(b * n * s * s);
  for (std::int64_t batch0 : {0, 1}) {
    for (std::int64_t head0 : {0, 2}) {
      for (std::int64_t row0 : {0, 3}) {
        for (std::int64_t col0 : {0, 2}) {
          // one batch, two heads, three rows, four columns
          DropoutMask part =
              make_dropout_mask(options, draw, DropoutSite::attention_probs, s, row0, s, col0);
          part.heads_local = 2;
          part.heads_global = n;
          part.batch0 = batch0;
          part.head0 = head0;
          std::vector<double> block;
          for (std::int64_t g = 0; g < 2; ++g) {
            for (std::int64_t r = 0; r < 3; ++r) {
              for (std::int64_t c = 0; c < 4; ++c) {
                block.push_back(values[static_cast<std::size_t>(part.global_index(g, r, c))]);
              }
            }
          }
          Tensor t = device.empty({2, 3, 4}, DType::f64);
          device.upload(block, t);
          device.dropout(t, part);
          std::vector<double> got(block.size());
          device.download(t, got);
          for (std::size_t i = 0; i < got.size(); ++i) {
            const std::int64_t g = static_cast<std::int64_t>(i) / 12;
            const std::int64_t r = static_cast<std::int64_t>(i) / 4 % 3;
            const std::int64_t c = static_cast<std::int64_t>(i) % 4;
            EXPECT_EQ(got[i], expected[static_cast<std::size_t>(part.global_index(g, r, c))])
                << "batch0 " << batch0 << " head0 " << head0 << " row0 " << row0 << " col0 " << col0
                << " element " << i;
          }
        }
      }
    }
  }
}

TEST(DropoutMask, KeepsNanAndScalesWhatItKeeps) {
  CpuDevice device;
  for (DType dtype : {DType::f64, DType::f32}) {
    const DropoutMask mask =
        make_dropout_mask({0.5, 3}, {}, DropoutSite::attention_output, 1, 0, 64, 0);
    std::vector<double> values(64, 2.0);
    values[0] = NAN;
    Tensor t = device.empty({1, 64}, dtype);
    device.upload(values, t);
    device.dropout(t, mask);
    device.download(t, values);
    EXPECT_TRUE(std::isnan(values[0])) << "a NaN, dropped or kept, stays NaN";
    for (std::int64_t e = 1; e < 64; ++e) {
      EXPECT_EQ(values[static_cast<std::size_t>(e)], mask.keeps(e) ? 4.0 : 0.0) << e;
    }
  }
}

}  // namespace
}  // namespace tplab
