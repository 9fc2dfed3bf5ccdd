// The model's arithmetic by hand: small cases worked out on paper, the closed forms of
// docs/cost-model.md, parameter counts against the placements, the hardware file, the
// alpha-beta times, node layouts, and refusals of bad input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "alpha_beta.hpp"
#include "comm_check.hpp"
#include "core/error.hpp"
#include "cost_1d.hpp"
#include "cost_1d_sp.hpp"
#include "cost_3d.hpp"
#include "flops.hpp"
#include "gpt_activations.hpp"
#include "hardware.hpp"
#include "node_layout.hpp"
#include "projection.hpp"
#include "rank_cost.hpp"
#include "registry/make_scheme.hpp"

namespace tplab::model {
namespace {

using C = Collective;

PredictedCollective row(C c, const char* group, int size, std::int64_t calls,
                        std::int64_t elements) {
  return {c, ReduceOp::sum, kNoRoot, group, size, calls, elements};
}

/// A broadcast or reduce from `root`.
PredictedCollective rooted_row(C c, const char* group, int size, int root, std::int64_t calls,
                               std::int64_t elements) {
  return {c, ReduceOp::sum, root, group, size, calls, elements};
}

// ---- hand-computed cases -----------------------------------------------------------------------

TEST(HandComputed, OneDimensionalTwoRanks) {
  // t = 2, m = 4 tokens (b 1, s 4), h = 8: forward, the all-reduces after the output projection
  // and after fc2, each of [4, 8] = 32 elements; backward, those before Q/K/V and fc1.
  const RankCost c = rank_cost("1d", {}, 2, {1, 4, 8, 2}, Workload::block);
  const std::vector<PredictedCollective> expected = {row(C::all_reduce, "tp", 2, 2, 64)};
  EXPECT_EQ(c.comm.forward.rows(), expected);
  EXPECT_EQ(c.comm.backward.rows(), expected);
  EXPECT_EQ(c.comm.forward.total_bus_elements(), 64.0);  // 2(t-1)/t = 1
  // Wq..W2 split in two: 12 * 64 / 2 = 384; bq, bk, bv, b1: 56 / 2 = 28; bo, b2, LN: 48
  EXPECT_EQ(c.parameter_elements, 384 + 28 + 48);
  // 4 m h + 12 m h / t + b n s^2 / t + 2 m = 128 + 192 + 16 + 8
  EXPECT_EQ(c.activation_elements, 128 + 192 + 16 + 8);
  EXPECT_EQ(c.grid, "t=2");
}

TEST(HandComputed, OneDimensionalLinearPairAndOneRank) {
  const RankCost pair = rank_cost("1d", {}, 4, {1, 4, 8, 4}, Workload::linear_pair);
  EXPECT_EQ(pair.comm.forward.rows(),
            (std::vector<PredictedCollective>{row(C::all_reduce, "tp", 4, 1, 32)}));
  const RankCost alone = rank_cost("1d", {}, 1, {1, 4, 8, 2}, Workload::block);
  EXPECT_TRUE(alone.comm.forward.rows().empty()) << "a group of one rank moves nothing";
  EXPECT_TRUE(alone.comm.backward.rows().empty());
  EXPECT_TRUE(alone.groups.empty());
}

TEST(HandComputed, OneDimensionalWithSequenceParallelismTwoRanks) {
  // t = 2, m = 4 tokens, h = 8: forward, each sublayer all-gathers its input [4, 8] and
  // reduce-scatters its output (32 elements each); backward, each gathers dY and its kept input
  // again (64 per sublayer) and reduce-scatters dX, then bo, b2 (8 each) and the two
  // LayerNorms' gamma and beta (16 each) are all-reduced.
  const RankCost c = rank_cost("1d-sp", {}, 2, {1, 4, 8, 2}, Workload::block);
  EXPECT_EQ(c.comm.forward.rows(),
            (std::vector<PredictedCollective>{row(C::all_gather, "tp", 2, 2, 64),
                                              row(C::reduce_scatter, "tp", 2, 2, 64)}));
  EXPECT_EQ(c.comm.backward.rows(),
            (std::vector<PredictedCollective>{row(C::all_reduce, "tp", 2, 4, 48),
                                              row(C::all_gather, "tp", 2, 4, 128),
                                              row(C::reduce_scatter, "tp", 2, 2, 64)}));
  EXPECT_EQ(c.parameter_elements,
            rank_cost("1d", {}, 2, {1, 4, 8, 2}, Workload::block).parameter_elements);
  // 16 m h / t + b n s^2 / t + 2 m / t = 256 + 16 + 4; 1D keeps (t-1)/t (4 m h + 2 m) = 68 more
  EXPECT_EQ(c.activation_elements, 256 + 16 + 4);
  EXPECT_EQ(sequence_parallel_activation_savings({1, 4, 8, 2}, 2, Workload::block), 68);
  EXPECT_EQ(rank_cost("1d", {}, 2, {1, 4, 8, 2}, Workload::block).activation_elements -
                c.activation_elements,
            68);
  // The bus volume of the [m, h] traffic is 10 (t-1)/t m h, Megatron's; 1D's is 8 (t-1)/t m h.
  EXPECT_EQ(c.comm.forward.total_bus_elements() + c.comm.backward.total_bus_elements(),
            10.0 / 2 * 32 + 48.0);
}

TEST(HandComputed, TwoDimensionalTwoByTwo) {
  // q = 2, b = 2, s = 2 (m = 4, r = m/q = 2 rows per rank), h = 8 (blocks of 4 features).
  // One Linear2D [h, h]: forward broadcasts X(i,t) [2, 4] twice on row (16 elements) and
  // W(t,j) [4, 4] twice on column (32). Six linears: in sums to 9h = 72, so 144 on row;
  // in x out to 12 h^2 = 768, so 384 on column; 12 calls each, half of them (step t) from
  // root t.
  const RankCost c = rank_cost("2d", {}, 4, {2, 2, 8, 2}, Workload::block);
  EXPECT_EQ(c.comm.forward.rows(), (std::vector<PredictedCollective>{
                                       rooted_row(C::broadcast, "column", 2, 0, 6, 192),
                                       rooted_row(C::broadcast, "column", 2, 1, 6, 192),
                                       row(C::all_reduce, "row", 2, 4, 8),  // LN: 2 x 2 x [r]
                                       rooted_row(C::broadcast, "row", 2, 0, 6, 72),
                                       rooted_row(C::broadcast, "row", 2, 1, 6, 72),
                                   }));
  EXPECT_EQ(c.comm.backward.rows(), (std::vector<PredictedCollective>{
                                        // 6 biases (9h/q = 36) and 2 LayerNorms' [2, 4] (16)
                                        row(C::all_reduce, "column", 2, 8, 52),
                                        rooted_row(C::broadcast, "column", 2, 0, 6, 192),
                                        rooted_row(C::broadcast, "column", 2, 1, 6, 192),
                                        rooted_row(C::reduce, "column", 2, 0, 6, 192),
                                        rooted_row(C::reduce, "column", 2, 1, 6, 192),
                                        row(C::all_reduce, "row", 2, 2, 8),
                                        rooted_row(C::broadcast, "row", 2, 0, 6, 72),
                                        rooted_row(C::broadcast, "row", 2, 1, 6, 72),
                                        rooted_row(C::reduce, "row", 2, 0, 6, 72),
                                        rooted_row(C::reduce, "row", 2, 1, 6, 72),
                                    }));
  EXPECT_EQ(c.parameter_elements, 768 / 4 + 13 * 8 / 2);
  // 16 r h / q + (b/q)(n/q) s^2 + 2 r = 128 + 4 + 4
  EXPECT_EQ(c.activation_elements, 128 + 4 + 4);
}

TEST(HandComputed, TwoAndAHalfDimensionalAddsTheDepthAllReduce) {
  // q = 2, d = 2, b = 4, s = 2: each layer holds b/d = 2 sequences, the 2D case above; then
  // every one of the 16 gradients is all-reduced over depth: 768/4 + 13*8/2 = 244 elements.
  const RankCost flat = rank_cost("2d", {}, 4, {2, 2, 8, 2}, Workload::block);
  const RankCost deep = rank_cost("2.5d", {}, 8, {4, 2, 8, 2}, Workload::block);
  EXPECT_EQ(deep.grid, "q=2 d=2");
  EXPECT_EQ(deep.comm.forward.rows(), flat.comm.forward.rows());
  PhaseComm expected = flat.comm.backward;
  expected.add(C::all_reduce, "depth", 2, 16, 244);
  EXPECT_EQ(deep.comm.backward.rows(), expected.rows());
}

TEST(HandComputed, ThreeDimensionalTwoCubed) {
  // q = 2, b = 4, s = 2 (m = 8, m/q^2 = 2 rows per rank), h = 8: m h / q^2 = 16, h^2 / q^2 = 16.
  // Each token block is one whole sequence, so attention needs no exchange.
  const RankCost c = cost_3d({4, 2, 8, 2}, 2, false, Workload::block);
  EXPECT_EQ(c.comm.forward.rows(),
            (std::vector<PredictedCollective>{
                row(C::all_gather, "input", 2, 2, 32),        // LN1's and LN2's outputs
                row(C::reduce_scatter, "input", 2, 2, 32),    // the projection's and fc2's Y
                row(C::all_reduce, "output", 2, 4, 8),        // LayerNorm statistics [2]
                row(C::all_gather, "output", 2, 2, 80),       // ctx [2, 4], GELU's output [2, 16]
                row(C::reduce_scatter, "output", 2, 4, 112),  // Q, K, V [4, 4], fc1 [4, 16]
                row(C::all_gather, "weight", 2, 6, 192),      // 12 h^2 / q^2
            }));
  EXPECT_EQ(c.comm.backward.rows(),
            (std::vector<PredictedCollective>{
                row(C::all_gather, "input", 2, 2, 32),
                row(C::reduce_scatter, "input", 2, 2, 32),
                row(C::all_reduce, "input_weight", 4, 4, 24),  // bo, b2, 2 x [2, 4] LayerNorm
                row(C::all_reduce, "output", 2, 2, 8),
                row(C::all_gather, "output", 2, 4, 112),
                row(C::reduce_scatter, "output", 2, 2, 80),
                row(C::all_reduce, "output_weight", 4, 4, 28),  // bq, bk, bv [4], b1 [16]
                row(C::reduce_scatter, "weight", 2, 6, 192),
            }));
  EXPECT_EQ(c.parameter_elements, 12 * 64 / 8 + 13 * 8 / 2);
  // 9 m h/q^3 + 7 m h/q^2 + 12 h^2/q^2 + 2 m/q^2 + b n s^2/q^3 = 72 + 112 + 192 + 4 + 4
  EXPECT_EQ(c.activation_elements, 384);
}

TEST(HandComputed, ThreeDimensionalBlocksThatCutSequencesGatherKeysAndValues) {
  // b = 2, s = 4: a token block of 2 rows is half a sequence; K and V [2, 4] are all-gathered
  // over the 4 token blocks of output_weight, [8, 4] = 32 elements each, and their gradients
  // reduce-scattered back.
  const RankCost c = cost_3d({2, 4, 8, 2}, 2, false, Workload::block);
  const auto has = [](const PhaseComm& phase, const PredictedCollective& expected) {
    const auto rows = phase.rows();
    return std::find(rows.begin(), rows.end(), expected) != rows.end();
  };
  EXPECT_TRUE(has(c.comm.forward, row(C::all_gather, "output_weight", 4, 2, 64)));
  EXPECT_TRUE(has(c.comm.backward, row(C::reduce_scatter, "output_weight", 4, 2, 64)));
}

TEST(HandComputed, ThreeDimensionalRegatherTradesMemoryForGathers) {
  const BlockShape shape{4, 2, 8, 2};
  const RankCost kept = cost_3d(shape, 2, false, Workload::block);
  const RankCost again = cost_3d(shape, 2, true, Workload::block);
  EXPECT_EQ(again.comm.forward.rows(), kept.comm.forward.rows());
  // backward gathers X~ (input: 2 x 16; output: 16 + 64) and W~ (192) again
  EXPECT_EQ(again.comm.backward.total_elements() - kept.comm.backward.total_elements(),
            32 + 80 + 192);
  // kept: X [m/q^2, in/q] instead of X~ [m/q, in/q], and no W~
  EXPECT_EQ(kept.activation_elements - again.activation_elements, (32 + 80 - 16 - 40) + 192);
}

// ---- the closed forms of docs/cost-model.md
// ------------------------------------------------------

const BlockShape kShapes[] = {{2, 8, 32, 4}, {12, 4, 72, 12}, {8, 2048, 8192, 64}, {6, 5, 36, 6}};

TEST(ClosedForm, OneDimensional) {
  for (const BlockShape& s : kShapes) {
    for (int t : {2, 4}) {
      if (s.heads % t != 0) continue;
      const double m = static_cast<double>(s.tokens()), h = static_cast<double>(s.h);
      const RankCost c = rank_cost("1d", {}, t, s, Workload::block);
      EXPECT_EQ(c.comm.total().total_elements(), 4 * s.tokens() * s.h);
      EXPECT_DOUBLE_EQ(c.comm.total().total_bus_elements(), 8.0 * (t - 1) / t * m * h);
    }
  }
}

TEST(ClosedForm, TwoDimensional) {
  for (const BlockShape& s : kShapes) {
    for (int q : {2, 3}) {
      if (s.b % q != 0 || s.heads % q != 0) continue;
      const std::int64_t m = s.tokens(), h = s.h;
      const RankCost c = rank_cost("2d", {}, q * q, s, Workload::block);
      EXPECT_EQ(c.comm.total().total_elements() * q, 27 * m * h + 36 * h * h + 8 * m + 13 * h);
      const double bus =
          (27.0 * m * h + 36.0 * h * h) / q + 2.0 * (q - 1) / q / q * (8 * m + 13 * h);
      EXPECT_NEAR(c.comm.total().total_bus_elements(), bus, 1e-9 * bus);
    }
  }
}

TEST(ClosedForm, TwoAndAHalfDimensional) {
  for (const BlockShape& s : kShapes) {
    for (auto [q, d] : {std::pair{2, 2}, std::pair{2, 3}, std::pair{3, 2}}) {
      if (s.b % (d * q) != 0 || s.heads % q != 0) continue;
      const std::int64_t m = s.tokens(), h = s.h;
      const RankCost c = rank_cost("2.5d", {d}, d * q * q, s, Workload::block);
      EXPECT_EQ(c.comm.total().total_elements() * q * d,
                27 * m * h + 36 * h * h * d + 8 * m + 13 * h * d + 12 * h * h * d / q + 13 * h * d);
      const double bus = (27.0 * m * h / d + 36.0 * h * h) / q +
                         2.0 * (q - 1) / q / q * (8.0 * m / d + 13 * h) +
                         2.0 * (d - 1) / d * (12.0 * h * h / q / q + 13.0 * h / q);
      EXPECT_NEAR(c.comm.total().total_bus_elements(), bus, 1e-9 * bus);
    }
  }
}

TEST(ClosedForm, ThreeDimensionalIsTheDesignNotesPlusLayerNormAndBiases) {
  for (const BlockShape& s :
       {BlockShape{8, 4, 64, 8}, BlockShape{27, 3, 81, 9}, BlockShape{8, 2048, 8192, 64}}) {
    for (int q : {2, 3, 4}) {
      const std::int64_t q2 = q * q;
      if (s.b % q2 != 0 || s.h % q2 != 0 || s.heads % q != 0) continue;
      const std::int64_t m = s.tokens(), h = s.h;
      const RankCost c = cost_3d(s, q, false, Workload::block);
      EXPECT_EQ(c.comm.total().total_elements(),
                (32 * m * h + 24 * h * h + 8 * m) / q2 + 13 * h / q);
      const double q3 = static_cast<double>(q2 * q);
      const double bus = 2.0 * (q - 1) / q3 * (16.0 * m * h + 12.0 * h * h) +
                         16.0 * (q - 1) / q3 * m + 26.0 * (q2 - 1) / q3 * h;
      EXPECT_NEAR(c.comm.total().total_bus_elements(), bus, 1e-9 * bus);
    }
  }
}

// ---- parameters against the placements
// -----------------------------------------------------------

TEST(Parameters, EqualWhatThePlacementsGiveEveryRank) {
  const BlockShape shape{12, 4, 72, 12};
  const std::pair<const char*, int> runs[] = {{"1d", 1}, {"1d", 2},   {"1d", 4},  {"2d", 4},
                                              {"2d", 9}, {"2.5d", 4}, {"2.5d", 8}};
  for (const auto& [name, p] : runs) {
    for (Workload w : {Workload::block, Workload::linear_pair}) {
      const auto placements = make_scheme(name)->placements(p, shape, w);
      const RankCost c = rank_cost(name, {}, p, shape, w);
      for (int rank = 0; rank < p; ++rank) {
        std::int64_t held = 0;
        for (const auto& t : placements) {
          if (is_parameter(t.tensor)) held += element_count(t.local_extents(rank));
        }
        EXPECT_EQ(c.parameter_elements, held) << name << " p=" << p << " rank " << rank;
      }
    }
  }
}

// ---- activations against Korthikanti et al.
// --------------------------------------------------------

/// Korthikanti et al.'s Table 2 against tplab's kept elements at 2 bytes an element, for 1D
/// (`sequence_parallel` false) or 1d-sp, in every recompute mode, at every shape and t that
/// splits it. The mapping: Korthikanti keeps 1-byte dropout masks, two [m, h] for the sublayer
/// outputs and per head a [s, s] for the probabilities, and the probabilities' dropout output
/// D(P) (2 bytes); tplab keeps no mask (it draws each again from the counter) and forms D(P)
/// again from the kept P in backward. tplab keeps LayerNorm's 1/std [m] twice, which the paper
/// leaves out. Selective recomputes P, so its mask and D(P) go too; full keeps the input alone.
/// Sequence parallelism splits the masks of the outputs and LayerNorm's rows t ways, and full's
/// input (the paper's one full row, 2 s b h, counts it whole). Nothing else differs.
void expect_table2(bool sequence_parallel) {
  const char* scheme = sequence_parallel ? "1d-sp" : "1d";
  const auto paper =
      sequence_parallel ? korthikanti_activation_bytes_1d_sp : korthikanti_activation_bytes_1d;
  for (const BlockShape& s : kShapes) {
    for (int t : {1, 2, 4}) {
      if (s.heads % t != 0 || (sequence_parallel && s.tokens() % t != 0)) continue;
      const auto ours = [&](Recompute mode) {
        SchemeOptions options;
        options.training.recompute = mode;
        return 2.0 * static_cast<double>(
                         rank_cost(scheme, options, t, s, Workload::block).activation_elements);
      };
      const double split = sequence_parallel ? t : 1;
      const double m = static_cast<double>(s.tokens()), h = static_cast<double>(s.h);
      const double output_masks = 2 * m * h / split;
      const double probability_terms = 3.0 * s.b * s.heads * s.s * s.s / t;  // mask 1 + D(P) 2
      const double layer_norm = 4 * m / split;
      EXPECT_DOUBLE_EQ(paper(s, t, Recompute::none),
                       ours(Recompute::none) + output_masks + probability_terms - layer_norm)
          << scheme << " t=" << t;
      EXPECT_DOUBLE_EQ(paper(s, t, Recompute::selective),
                       ours(Recompute::selective) + output_masks - layer_norm)
          << scheme << " t=" << t;
      EXPECT_DOUBLE_EQ(paper(s, t, Recompute::full), ours(Recompute::full)) << scheme << " t=" << t;
    }
  }
}

TEST(Activations, OneDimensionalIsKorthikantisTable2InEveryRecomputeMode) {
  expect_table2(false);
}

TEST(Activations, SequenceParallelIsKorthikantisTable2InEveryRecomputeMode) {
  expect_table2(true);
}

/// The GPT keeps L blocks' tensors and, around them, the final LayerNorm's, the head's input,
/// the logits and the loss's row statistics; worked out by hand at b=2 s=8 h=16 n=4 (m = 16),
/// V = 32, L = 2, t = 2. `train` holds every scheme's to what the device measures.
TEST(Activations, TheGptKeepsItsBlocksAndItsNormHeadLogitsAndLoss) {
  const gpt::GptShape shape{{2, 8, 16, 4}, 32, 2};
  // 1D block: 4 m h + 12 m h/t + b n s^2/t + 2 m = 1024 + 1536 + 256 + 32 = 2848; the rest:
  // LN_f m h + m, the head's input m h, logits m V/t, the loss's 3 m = 272 + 256 + 256 + 48
  EXPECT_EQ(gpt_activation_elements("1d", {}, 2, shape, 0), 2 * 2848 + 832);
  // 1d-sp block: 16 m h/t + b n s^2/t + 2 m/t = 2048 + 256 + 16 = 2320; LN_f's rows split t
  // ways (136), the head's input gathered whole: 136 + 256 + 256 + 48
  EXPECT_EQ(gpt_activation_elements("1d-sp", {}, 2, shape, 0), 2 * 2320 + 696);
  // selective recomputation drops each block's probabilities, b n s^2/t = 256, and only those
  SchemeOptions selective;
  selective.training.recompute = Recompute::selective;
  EXPECT_EQ(gpt_activation_elements("1d", selective, 2, shape, 0), 2 * (2848 - 256) + 832);
  // 2D, q = 2, r = m/q = 8 rows: block 16 r h/q + (b/q)(n/q) s^2 + 2 r = 1024 + 128 + 16;
  // LN_f 8 x 8 + 8, the head's input 8 x 8, logits r V/q = 8 x 16, the loss's 3 r
  EXPECT_EQ(gpt_activation_elements("2d", {}, 4, shape, 0), 2 * 1168 + 288);
  // 2.5D on 8 ranks (q = 2, d = 2) with twice the batch keeps what 2D keeps on 4 ranks
  const gpt::GptShape twice{{4, 8, 16, 4}, 32, 2};
  for (int rank : {0, 7}) EXPECT_EQ(gpt_activation_elements("2.5d", {}, 8, twice, rank), 2624);
  // 3D, q = 2, r = m/q^2 = 4: LN_f 4 x 8 + 4, the head's X~ [m/q, h/q] 64 and W~ [h/q, V/q]
  // 128, logits 4 x 16, the loss's 12; regathering keeps X [r, h/q] (32) for X~ and W~
  EXPECT_EQ(gpt_parts_kept_3d(shape, 2, false), 36 + 64 + 128 + 64 + 12);
  EXPECT_EQ(gpt_parts_kept_3d(shape, 2, true), 36 + 32 + 64 + 12);
  SchemeOptions regather;
  regather.regather = true;
  EXPECT_EQ(
      gpt_activation_elements("3d", regather, 8, shape, 0) -
          2 * rank_cost("3d", regather, 8, shape.block, Workload::block).activation_elements_of(0),
      gpt_parts_kept_3d(shape, 2, true));
}

// ---- comparing counters with the model
// -------------------------------------------------------------

TEST(CommCheck, AnExtraAMissingAResizedOrAnotherReductionOrRootIsAMismatch) {
  CommPrediction model;
  model.forward.add(C::all_reduce, "tp", 2, 2, 64);
  const CollectiveCount right{C::all_reduce, ReduceOp::sum, kNoRoot, "tp", 2, 2, 64, 512, 64, 0.1};
  EXPECT_TRUE(check_comm({right}, {}, model).match);

  CollectiveCount fewer = right;
  fewer.calls = 1;
  fewer.elements = 32;
  EXPECT_FALSE(check_comm({fewer}, {}, model).match);
  EXPECT_FALSE(check_comm({}, {}, model).match) << "nothing measured";
  EXPECT_FALSE(check_comm({right}, {right}, model).match) << "backward has one too many";
  CollectiveCount wider = right;
  wider.group_size = 4;
  EXPECT_FALSE(check_comm({wider}, {}, model).match);

  CollectiveCount maximum = right;
  maximum.op = ReduceOp::max;
  const CommCheck other_op = check_comm({maximum}, {}, model);
  EXPECT_FALSE(other_op.match) << "a max where the model predicts a sum";
  ASSERT_EQ(other_op.forward.size(), 2u) << "a measured row and a predicted one, both unmatched";

  CommPrediction from_root;
  from_root.forward.add_rooted(C::broadcast, "row", 2, 1, 2, 64);
  CollectiveCount broadcast = right;
  broadcast.collective = C::broadcast;
  broadcast.op = ReduceOp::sum;
  broadcast.group = "row";
  broadcast.root = 1;
  EXPECT_TRUE(check_comm({broadcast}, {}, from_root).match);
  broadcast.root = 0;
  EXPECT_FALSE(check_comm({broadcast}, {}, from_root).match) << "a broadcast from another root";

  const CommCheck both = check_comm({right}, {right}, model);
  ASSERT_EQ(both.total.size(), 1u);
  EXPECT_EQ(both.total[0].elements, 128);
  EXPECT_EQ(both.total[0].model_elements, 64);
  EXPECT_EQ(both.measured_elements(), 128);
  EXPECT_EQ(both.model_elements(), 64);
}

// ---- time
// ---------------------------------------------------------------------------------------------

TEST(AlphaBeta, RingStepsAndBusVolume) {
  EXPECT_EQ(ring_steps(C::all_reduce, 8), 14);
  EXPECT_EQ(ring_steps(C::all_gather, 8), 7);
  EXPECT_EQ(ring_steps(C::broadcast, 8), 7);
  // 3 all-reduces of 1e6 elements in all on 4 ranks, 2 bytes, alpha 1 us, 1e9 bytes/s:
  // 3 x 6 steps x 1 us + 1e6 x 2 x 3/4 x 2 bytes / 1e9
  const CollectiveTime t = collective_time(row(C::all_reduce, "tp", 4, 3, 1000000), {1e-6, 1e9}, 2);
  EXPECT_DOUBLE_EQ(t.latency_s, 18e-6);
  EXPECT_DOUBLE_EQ(t.bandwidth_s, 3e-3);
  const CollectiveTime b = collective_time(row(C::broadcast, "row", 4, 1, 1000), {1e-6, 1e9}, 4);
  EXPECT_DOUBLE_EQ(b.latency_s, 3e-6);
  EXPECT_DOUBLE_EQ(b.bandwidth_s, 4e-6) << "a broadcast's every link carries N";
}

TEST(AlphaBeta, APointToPointTransferIsOneHopOfItsBytes) {
  EXPECT_EQ(ring_steps(C::send, 8), 1);
  EXPECT_EQ(ring_steps(C::recv, 2), 1);
  // 2 sends of 1000 elements in all to rank 3 of 8, 4 bytes, alpha 1 us, 1e9 bytes/s:
  // 2 x 1 hop x 1 us + 1000 x 4 bytes / 1e9, whatever the group's size
  for (C c : {C::send, C::recv}) {
    const CollectiveTime t = collective_time(rooted_row(c, "pp", 8, 3, 2, 1000), {1e-6, 1e9}, 4);
    EXPECT_DOUBLE_EQ(t.latency_s, 2e-6) << collective_name(c);
    EXPECT_DOUBLE_EQ(t.bandwidth_s, 4e-6) << collective_name(c);
  }
}

/// Where each group of `scheme` on `p` ranks sits, `per_node` ranks per node, as
/// "name(size) xgroups: across of them cross, fewest-most nodes".
std::vector<std::string> group_placements(const char* scheme, const SchemeOptions& options, int p,
                                          int per_node) {
  std::vector<std::string> out;
  for (const GroupLayout& layout :
       rank_cost(scheme, options, p, {16, 4, 64, 16}, Workload::block).groups) {
    const GroupPlacement g = place_groups(layout, p, per_node);
    out.push_back(fmt::format("{}({}) x{}: {} cross, {}-{} nodes", g.name, g.size, g.groups,
                              g.groups_across_nodes, g.fewest_nodes, g.most_nodes));
  }
  return out;
}

using Placements = std::vector<std::string>;

TEST(NodeLayout, RanksFillNodesInOrder) {
  EXPECT_EQ(node_of(7, 8), 0);
  EXPECT_EQ(node_of(8, 8), 1);
  EXPECT_EQ(node_count(16, 8), 2);
  EXPECT_EQ(node_count(12, 8), 2) << "the last node is half full";
  EXPECT_EQ(node_count(4, 8), 1);
}

TEST(NodeLayout, OneDimensionalCrossesOnceItOutgrowsANode) {
  // The one tp group holds every rank: within one node up to 8 ranks, across two at 16.
  EXPECT_EQ(group_placements("1d", {}, 8, 8), Placements{"tp(8) x1: 0 cross, 1-1 nodes"});
  EXPECT_EQ(group_placements("1d", {}, 16, 8), Placements{"tp(16) x1: 1 cross, 2-2 nodes"});
  EXPECT_EQ(group_placements("1d-sp", {}, 16, 8), Placements{"tp(16) x1: 1 cross, 2-2 nodes"});
}

TEST(NodeLayout, TwoDimensionalRowsStayInANodeColumnsLeaveIt) {
  // rank = q i + j (parallel/grid/grid_2d.cpp): a row i is q consecutive ranks, a column j
  // every q-th rank. q = 4 on 8 per node: rows 0 and 1 on node 0, 2 and 3 on node 1; each
  // column holds j, j+4 (node 0) and j+8, j+12 (node 1).
  EXPECT_EQ(group_placements("2d", {}, 16, 8),
            (Placements{"row(4) x4: 0 cross, 1-1 nodes", "column(4) x4: 4 cross, 2-2 nodes"}));
  // q = 8: a row fills a node; a column has one rank on each of the 8 nodes.
  EXPECT_EQ(group_placements("2d", {}, 64, 8),
            (Placements{"row(8) x8: 0 cross, 1-1 nodes", "column(8) x8: 8 cross, 8-8 nodes"}));
  // 6 per node cuts rows: ranks 4-7 sit on nodes 0 and 1, ranks 12-15 on node 2 alone; every
  // column {j, j+4, j+8, j+12} meets nodes 0, 1 and 2.
  EXPECT_EQ(group_placements("2d", {}, 16, 6),
            (Placements{"row(4) x4: 1 cross, 1-2 nodes", "column(4) x4: 4 cross, 3-3 nodes"}));
}

TEST(NodeLayout, TwoAndAHalfDimensionalDepthLeavesTheNodeFirst) {
  // rank = j + q i + q^2 k (parallel/grid/grid_2p5d.cpp): each layer is q^2 consecutive ranks,
  // a depth group every q^2-th rank. q = 2, d = 4: two layers per node, so the meshes stay
  // inside and each depth group {r, r+4, r+8, r+12} spans both nodes.
  EXPECT_EQ(group_placements("2.5d", {4}, 16, 8),
            (Placements{"row(2) x8: 0 cross, 1-1 nodes", "column(2) x8: 0 cross, 1-1 nodes",
                        "depth(4) x4: 4 cross, 2-2 nodes"}));
  // q = 4, d = 2: a layer of 16 fills two nodes, so its columns cross as 2D's do.
  EXPECT_EQ(group_placements("2.5d", {2}, 32, 8),
            (Placements{"row(4) x8: 0 cross, 1-1 nodes", "column(4) x8: 8 cross, 2-2 nodes",
                        "depth(2) x16: 16 cross, 2-2 nodes"}));
}

TEST(NodeLayout, ThreeDimensionalAxesSpanMoreNodesTheLongerTheirStride) {
  // rank = i + q (j + q k) (parallel/grid/grid_3d.cpp), q = 4 on 8 per node: input varies i
  // (stride 1), weight j (stride 4: two nodes), output k (stride 16: four nodes); the plane
  // input_weight is 16 consecutive ranks, output_weight every 4th rank of all 64.
  EXPECT_EQ(
      group_placements("3d", {}, 64, 8),
      (Placements{"input(4) x16: 0 cross, 1-1 nodes", "weight(4) x16: 16 cross, 2-2 nodes",
                  "output(4) x16: 16 cross, 4-4 nodes", "input_weight(16) x4: 4 cross, 2-2 nodes",
                  "output_weight(16) x4: 4 cross, 8-8 nodes"}));
}

TEST(NodeLayout, NothingCrossesWhenOneNodeHoldsTheWorldAndEverythingWhenEachHoldsOneRank) {
  const std::pair<const char*, int> runs[] = {{"1d", 16}, {"1d-sp", 16}, {"2d", 16},
                                              {"2d", 64}, {"2.5d", 32},  {"3d", 64}};
  for (const auto& [scheme, p] : runs) {
    for (const GroupLayout& layout :
         rank_cost(scheme, {}, p, {16, 4, 64, 16}, Workload::block).groups) {
      const GroupPlacement together = place_groups(layout, p, p);
      EXPECT_FALSE(together.crosses_nodes()) << scheme << " " << layout.name;
      EXPECT_EQ(together.most_nodes, 1) << scheme << " " << layout.name;
      const GroupPlacement apart = place_groups(layout, p, 1);
      EXPECT_EQ(apart.groups_across_nodes, apart.groups) << scheme << " " << layout.name;
      EXPECT_EQ(apart.fewest_nodes, layout.size) << scheme << " " << layout.name;
      EXPECT_EQ(apart.groups * layout.size, p) << scheme << " " << layout.name;
    }
  }
}

TEST(FlopCount, CountsTheSixLinearsAndAttention) {
  // m = 4, h = 8, s = 4: 3 x (24 x 4 x 64 + 4 x 1 x 16 x 8)
  EXPECT_DOUBLE_EQ(block_step_flops({1, 4, 8, 2}), 3.0 * (6144 + 512));
}

// ---- hardware
// --------------------------------------------------------------------------------------------

TEST(Hardware, ShippedProfilesNameASourceForEveryNumber) {
  const auto profiles = load_profiles(shipped_hardware_file());
  for (const char* name : {"dgx-h100", "dgx-a100", "local"}) {
    ASSERT_TRUE(profiles.contains(name)) << name;
  }
  const HardwareProfile& h100 = profiles.at("dgx-h100");
  EXPECT_EQ(h100.gpus_per_node, 8);
  EXPECT_EQ(h100.intra_node.rate.bandwidth_bytes_per_s, 450e9) << "900 GB/s counts both ways";
  EXPECT_EQ(h100.inter_node->rate.bandwidth_bytes_per_s, 50e9) << "400 Gb/s is 50 GB/s";
  EXPECT_EQ(profiles.at("dgx-a100").intra_node.rate.bandwidth_bytes_per_s, 300e9);
  EXPECT_FALSE(profiles.at("local").inter_node.has_value()) << "this machine is one node";
}

TEST(Hardware, ANumberWithoutSourceOrNotPositiveIsRefused) {
  const nlohmann::json good = profile_json(load_profiles(shipped_hardware_file()).at("dgx-h100"));
  EXPECT_NO_THROW(parse_profile("x", good));
  nlohmann::json unsourced = good;
  unsourced["sources"].erase("intra_node.latency_s");
  try {
    parse_profile("x", unsourced);
    FAIL() << "a number without a source was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("\"intra_node.latency_s\" has no source"),
              std::string::npos)
        << e.what();
  }
  nlohmann::json zero = good;
  zero["matmul_flops_per_s"] = 0;
  EXPECT_THROW(parse_profile("x", zero), UsageError);
}

TEST(Hardware, AGpuPeakIsItsProfilesDensePeakNeverTheSparseOne) {
  const auto profiles = load_profiles(shipped_hardware_file());
  const auto h200 = gpu_peak(profiles, "NVIDIA H200", "bf16");
  ASSERT_TRUE(h200.has_value());
  EXPECT_EQ(h200->profile, "dgx-h200");
  EXPECT_EQ(h200->flops_per_s, 989e12);
  EXPECT_EQ(h200->sparse_flops_per_s, 1979e12) << "the figure with 2:4 sparsity, kept apart";
  EXPECT_NE(h200->source.find("dense is half"), std::string::npos) << h200->source;
  EXPECT_EQ(gpu_peak(profiles, "NVIDIA H100 80GB HBM3", "f32")->flops_per_s, 67e12);
  EXPECT_EQ(gpu_peak(profiles, "NVIDIA A100-SXM4-80GB", "bf16")->flops_per_s, 312e12);
  // Names are matched whole: the H200 NVL and the H100 PCIe have lower peaks of their own.
  EXPECT_FALSE(gpu_peak(profiles, "NVIDIA H200 NVL", "bf16").has_value());
  EXPECT_FALSE(gpu_peak(profiles, "NVIDIA H100 PCIe", "bf16").has_value());
  EXPECT_FALSE(gpu_peak(profiles, "NVIDIA H200", "f16").has_value()) << "no peak for that dtype";
  for (const auto& [name, p] : profiles) {
    for (const auto& [dtype, sparse] : p.sparse_peak_flops_per_s) {
      EXPECT_LT(p.dense_peak_flops_per_s.at(dtype), sparse) << name << " " << dtype;
    }
  }
}

TEST(Hardware, AGpuProfileNeedsDensePeaksWithSources) {
  const nlohmann::json good = profile_json(load_profiles(shipped_hardware_file()).at("dgx-h200"));
  EXPECT_NO_THROW(parse_profile("x", good));
  nlohmann::json unsourced = good;
  unsourced["sources"].erase("dense_peak_flops_per_s.bf16");
  EXPECT_THROW(parse_profile("x", unsourced), UsageError);
  nlohmann::json no_peaks = good;
  no_peaks.erase("dense_peak_flops_per_s");
  try {
    parse_profile("x", no_peaks);
    FAIL() << "a GPU's profile without dense peaks was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("needs \"dense_peak_flops_per_s\""), std::string::npos)
        << e.what();
  }
}

TEST(Hardware, UnknownNamesListTheKnownOnes) {
  const auto profiles = available_profiles();
  try {
    find_profile(profiles, "tpu-v9");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown hardware 'tpu-v9' (known: dgx-a100, dgx-h100, "
                                         "dgx-h200, local)"),
              std::string::npos)
        << e.what();
  }
}

// ---- projections and refusals
// ---------------------------------------------------------------------------

TEST(Projection, AddsComputeAndCommunicationOnTheRightLinks) {
  const auto profiles = load_profiles(shipped_hardware_file());
  const HardwareProfile& hw = profiles.at("dgx-h100");
  const BlockShape shape{8, 2048, 8192, 64};
  const Projection in_node = project("1d", {}, 8, shape, hw);
  const Projection across = project("1d", {}, 16, shape, hw);
  ASSERT_TRUE(in_node.fits());
  EXPECT_FALSE(in_node.collectives[0].inter_node);
  EXPECT_TRUE(across.collectives[0].inter_node);
  EXPECT_DOUBLE_EQ(in_node.compute_s, block_step_flops(shape) / 8 / 989e12);
  // 4 m h elements x 2(t-1)/t x 2 bytes at 450 GB/s
  const double m = 16384, h = 8192;
  EXPECT_NEAR(in_node.comm_bandwidth_s, 4 * m * h * 2 * 7.0 / 8 * 2 / 450e9, 1e-12);
  EXPECT_DOUBLE_EQ(in_node.comm_latency_s, 4 * 14 * 3.4e-6);
  EXPECT_DOUBLE_EQ(in_node.step_s(), in_node.compute_s + in_node.comm_s());
  EXPECT_TRUE(in_node.korthikanti_bytes.has_value());
}

TEST(Projection, RanksPerNodeDecidesWhichLinkEachGroupUses) {
  const auto profiles = load_profiles(shipped_hardware_file());
  const HardwareProfile& hw = profiles.at("dgx-h100");
  const BlockShape shape{8, 2048, 8192, 64};
  const double m = 16384, h = 8192;

  // 1D at 16 on nodes of 8: its one group spans two nodes, so all of 4 m h crosses
  // InfiniBand, and the step is slower than on one node of 8 despite half the compute.
  const Projection eight = project("1d", {}, 8, shape, hw, 8);
  const Projection across = project("1d", {}, 16, shape, hw, 8);
  EXPECT_EQ(across.nodes, 2);
  ASSERT_EQ(across.groups.size(), 1u);
  EXPECT_TRUE(across.groups[0].crosses_nodes());
  EXPECT_TRUE(across.collectives[0].inter_node);
  EXPECT_NEAR(across.comm_bandwidth_s, 4 * m * h * 2 * 15.0 / 16 * 2 / 50e9, 1e-12);
  EXPECT_GT(across.step_s(), eight.step_s());
  // The same 16 ranks on one node of 16 stay on NVLink.
  const Projection together = project("1d", {}, 16, shape, hw, 16);
  EXPECT_EQ(together.nodes, 1);
  EXPECT_FALSE(together.groups[0].crosses_nodes());
  EXPECT_FALSE(together.collectives[0].inter_node);
  EXPECT_NEAR(together.comm_bandwidth_s, 4 * m * h * 2 * 15.0 / 16 * 2 / 450e9, 1e-12);
  EXPECT_LT(together.step_s(), eight.step_s());
  // Without the count, nodes are the profile's: 8 GPUs.
  EXPECT_DOUBLE_EQ(project("1d", {}, 16, shape, hw).step_s(), across.step_s());

  // 2D q = 4 on nodes of 8: the rows' collectives on NVLink, the columns' on InfiniBand.
  const Projection mesh = project("2d", {}, 16, shape, hw, 8);
  ASSERT_TRUE(mesh.fits());
  for (const TimedCollective& t : mesh.collectives) {
    EXPECT_EQ(t.inter_node, t.row.group == "column") << t.row.group;
    const Link& link = t.row.group == "column" ? *hw.inter_node : hw.intra_node;
    EXPECT_DOUBLE_EQ(t.time.bandwidth_s,
                     collective_time(t.row, link.rate_of(t.row.collective), 2).bandwidth_s);
  }
  for (const TimedCollective& t : project("2d", {}, 16, shape, hw, 16).collectives) {
    EXPECT_FALSE(t.inter_node) << t.row.group << " with one node of 16";
  }
}

TEST(Projection, AProfileWithoutAnInterNodeLinkHoldsOneNode) {
  const auto profiles = load_profiles(shipped_hardware_file());
  const HardwareProfile& local = profiles.at("local");
  const BlockShape shape{8, 16, 64, 8};
  EXPECT_THROW(project("1d", {}, 4, shape, local), UsageError) << "the local profile is 2 cores";
  EXPECT_THROW(project("1d", {}, 2, shape, local, 1), UsageError) << "2 ranks on 2 nodes";
  const Projection one_node = project("1d", {}, 4, shape, local, 4);
  EXPECT_FALSE(one_node.collectives[0].inter_node);
}

TEST(Projection, SaysWhyNoGridFitsAndWhatWould) {
  const auto profiles = load_profiles(shipped_hardware_file());
  const Projection p = project("2d", {}, 8, {8, 2048, 8192, 64}, profiles.at("dgx-h100"));
  EXPECT_FALSE(p.fits());
  EXPECT_NE(p.why_not.find("needs 1, 4, 16 or 64 devices"), std::string::npos) << p.why_not;
  EXPECT_THROW(rank_cost("2d", {}, 6, {4, 8, 32, 4}, Workload::block), UsageError);
}

}  // namespace
}  // namespace tplab::model

namespace tplab::model {
namespace {

// With --dp D, backward gains one all-reduce on "dp" of every gradient element the rank holds
// (one call for the flat bucket, one per parameter otherwise); the rest is one replica's.
TEST(DataParallelCost, AddsTheGradientAllReduceOnTheDpGroup) {
  const BlockShape shape{4, 4, 8, 2};
  const RankCost tp = rank_cost("2d", {}, 4, {2, 4, 8, 2}, Workload::block);
  for (GradientBuckets buckets : {GradientBuckets::flat, GradientBuckets::per_tensor}) {
    const RankCost mesh =
        rank_cost("2d", {.dp = 2, .dp_buckets = buckets}, 8, shape, Workload::block);
    EXPECT_EQ(mesh.parameter_elements, tp.parameter_elements);
    EXPECT_EQ(mesh.activation_elements, tp.activation_elements);
    bool found = false;
    for (const PredictedCollective& row : mesh.comm.backward.rows()) {
      if (row.group != "dp") continue;
      found = true;
      EXPECT_EQ(row.group_size, 2);
      EXPECT_EQ(row.elements, tp.parameter_elements);
      EXPECT_EQ(row.calls, buckets == GradientBuckets::flat ? 1 : 16);
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(mesh.comm.forward.total_elements(), tp.comm.forward.total_elements());
  }
}

// A replica's groups stay inside it; the DP groups are its columns and cross nodes first.
TEST(DataParallelCost, ReplicaGroupsStayInsideANode) {
  const RankCost mesh = rank_cost("1d", {.dp = 4}, 8, {8, 4, 8, 2}, Workload::block);
  for (const GroupLayout& g : mesh.groups) {
    const GroupPlacement p = place_groups(g, 8, 2);
    EXPECT_EQ(p.crosses_nodes(), g.name == "dp") << g.name;
    EXPECT_EQ(p.groups, g.name == "dp" ? 2 : 4) << g.name;
  }
}

}  // namespace
}  // namespace tplab::model
