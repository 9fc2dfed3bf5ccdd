/// @file
/// BlockDropout: what one rank of a block needs to draw GPT's dropout masks as the
/// single-device block draws them, whichever scheme placed its elements.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "core/names.hpp"
#include "device/dropout_mask.hpp"
#include "scheme/block_training.hpp"
#include "scheme/placement.hpp"

namespace tplab {

/// Where this rank's part of the block lies in the global tensors the masks are drawn over.
struct DropoutPlace {
  BlockRange output;                ///< this rank's block of the [m, h] sublayer outputs ("y")
  std::int64_t first_sequence = 0;  ///< the global sequence of the block's sequence 0
  std::int64_t hidden = 0;          ///< h
  std::int64_t sequence = 0;        ///< s
  std::int64_t heads = 0;           ///< n, the global heads
  int world_rank = 0;               ///< for DropoutKeying::rank_seed
};

/// The run's dropout for one block on one rank: the options, the draw it is at (set each step)
/// and where its parts lie. The block and its attention core share one.
class BlockDropout {
 public:
  /// Dropout with `options`, keyed as `keying` says, for a rank placed at `place`.
  BlockDropout(DropoutOptions options, DropoutKeying keying, DropoutPlace place);
  /// True when p > 0: the block drops.
  bool active() const { return options_.p > 0; }
  /// The draw forward uses from now on (the step, and the block's layer).
  void set_draw(DropoutDraw draw) { draw_ = draw; }
  /// The draw forward uses now; backward replays the one its forward recorded.
  DropoutDraw draw() const { return draw_; }
  /// Where this rank's parts lie.
  const DropoutPlace& place() const { return place_; }
  /// The mask of a sublayer output (attention_output or mlp_output) over this rank's block.
  DropoutMask output_mask(DropoutSite site, DropoutDraw draw) const;
  /// The mask of the attention probabilities [batches * heads_local, s, s] of the sequences
  /// from batch0 and the heads from head0.
  DropoutMask probs_mask(DropoutDraw draw, std::int64_t batch0, std::int64_t head0,
                         std::int64_t heads_local) const;

 private:
  DropoutOptions options_;
  DropoutKeying keying_;
  DropoutPlace place_;
  DropoutDraw draw_;
};

}  // namespace tplab
