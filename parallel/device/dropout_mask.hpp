/// @file
/// DropoutMask: which elements dropout keeps, drawn from a counter-based generator keyed by the
/// element's place in the global tensor, so that every rank draws for an element it holds the
/// bit the single-device reference draws, with no generator state to keep in step.
///
/// The generator is Philox 4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as
/// easy as 1, 2, 3", SC 2011): ten rounds of two 32x32 -> 64-bit products and xors turn a
/// 128-bit counter and a 64-bit key into 128 random bits. The draw of element e (its row-major
/// index in the global tensor) of one site:
///
///   key     = (seed mod 2^32, seed / 2^32)
///   counter = (e/4 mod 2^32, e/4 / 2^32, step, 4 layer + site)
///   u       = word e mod 4 of Philox(counter, key)
///   kept    = u >= round(p 2^32),  and a kept element is scaled by 1/(1 - p)
///
/// Written once for the host and the GPU (TPLAB_HOST_DEVICE), so the CPU kernels, the CUDA
/// kernels and the tests run the same code; the reference draws its own
/// (reference/src/dropout.cpp).
#pragma once

#include <cmath>
#include <cstdint>

#include "device/cuda/kernel_math.hpp"

namespace tplab {

/// 128 bits: Philox's counter and its output.
struct Philox4x32 {
  std::uint32_t word[4];  ///< the four 32-bit words
};

/// Philox 4x32-10 of `counter` under the 64-bit key (key0, key1).
TPLAB_HOST_DEVICE inline Philox4x32 philox4x32_10(Philox4x32 counter, std::uint32_t key0,
                                                  std::uint32_t key1) {
  constexpr std::uint64_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;  // the key's bumps
  std::uint32_t* c = counter.word;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t product0 = kMultiplier0 * c[0];
    const std::uint64_t product1 = kMultiplier1 * c[2];
    const std::uint32_t hi0 = static_cast<std::uint32_t>(product0 >> 32);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(product1 >> 32);
    const Philox4x32 next{{hi1 ^ c[1] ^ key0, static_cast<std::uint32_t>(product1),
                           hi0 ^ c[3] ^ key1, static_cast<std::uint32_t>(product0)}};
    counter = next;
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  return counter;
}

/// The three places GPT drops: the attention probabilities after softmax, the attention
/// sublayer's output and the MLP's output (before each residual add).
enum class DropoutSite : std::uint32_t {
  attention_probs = 0,
  attention_output = 1,
  mlp_output = 2
};

/// Which draw: the training step and the block's layer (verify draws step 0, layer 0).
struct DropoutDraw {
  std::uint32_t step = 0;                               ///< training step
  std::uint32_t layer = 0;                              ///< the block's index in the model
  bool operator==(const DropoutDraw&) const = default;  ///< the same draw
};

/// One site's mask over this rank's part of a global tensor, as data a kernel reads.
///
/// The local tensor is [groups, rows, cols] (a matrix is one group). Its element (g, r, c) is
/// element ((batch, head), row0 + r, col0 + c) of a global [b*heads, rows_global, cols_global]
/// tensor with batch = batch0 + g / heads_local and head = head0 + g % heads_local: the
/// attention probabilities of this rank's sequences and heads, or (one group) the block of
/// an [m, h] activation this rank holds.
struct DropoutMask {
  std::uint32_t key0 = 0;         ///< the seed's low half
  std::uint32_t key1 = 0;         ///< the seed's high half
  std::uint32_t step = 0;         ///< counter word 2
  std::uint32_t stream = 0;       ///< counter word 3: 4 layer + site
  std::uint32_t threshold = 0;    ///< round(p 2^32): u below it is dropped
  double scale = 1;               ///< 1 / (1 - p), what a kept element is multiplied by
  std::int64_t heads_local = 1;   ///< heads per group batch on this rank
  std::int64_t heads_global = 1;  ///< heads of the global tensor
  std::int64_t batch0 = 0;        ///< the global batch of group 0
  std::int64_t head0 = 0;         ///< the global head of group 0
  std::int64_t rows_global = 0;   ///< rows of one global group
  std::int64_t row0 = 0;          ///< the global row of local row 0
  std::int64_t cols_global = 0;   ///< columns of the global tensor
  std::int64_t col0 = 0;          ///< the global column of local column 0

  /// The global row-major index of local element (g, r, c).
  TPLAB_HOST_DEVICE std::int64_t global_index(std::int64_t g, std::int64_t r,
                                              std::int64_t c) const {
    const std::int64_t group = (batch0 + g / heads_local) * heads_global + head0 + g % heads_local;
    return (group * rows_global + row0 + r) * cols_global + col0 + c;
  }

  /// True when dropout keeps global element `e` (and multiplies it by scale).
  TPLAB_HOST_DEVICE bool keeps(std::int64_t e) const {
    const std::uint64_t block = static_cast<std::uint64_t>(e) >> 2;
    const Philox4x32 bits =
        philox4x32_10(Philox4x32{{static_cast<std::uint32_t>(block),
                                  static_cast<std::uint32_t>(block >> 32), step, stream}},
                      key0, key1);
    return bits.word[e & 3] >= threshold;
  }
};

/// What a run's dropout is: the probability of dropping an element and the seed of the masks.
struct DropoutOptions {
  double p = 0;                                            ///< 0: no dropout
  std::uint64_t seed = 0;                                  ///< the masks' key
  bool operator==(const DropoutOptions&) const = default;  ///< the same options
};

/// The mask of `site` at `draw` for a global tensor of `rows_global` x `cols_global` (per
/// group), this rank holding the part that starts at row0, col0; the caller sets the groups'
/// fields for the attention probabilities. p must lie in [0, 1).
DropoutMask make_dropout_mask(const DropoutOptions& options, DropoutDraw draw, DropoutSite site,
                              std::int64_t rows_global, std::int64_t row0, std::int64_t cols_global,
                              std::int64_t col0);

}  // namespace tplab
