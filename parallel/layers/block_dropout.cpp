#include "layers/block_dropout.hpp"

namespace tplab {

BlockDropout::BlockDropout(DropoutOptions options, DropoutKeying keying, DropoutPlace place)
    : options_(options), keying_(keying), place_(place) {
  if (keying_ == DropoutKeying::rank_seed) {
    options_.seed += 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(place_.world_rank + 1);
  }
}

DropoutMask BlockDropout::output_mask(DropoutSite site, DropoutDraw draw) const {
  const BlockRange& b = place_.output;
  if (keying_ == DropoutKeying::local) {
    return make_dropout_mask(options_, draw, site, b.rows, 0, b.cols, 0);
  }
  const std::int64_t row0 = place_.first_sequence * place_.sequence + b.row0;
  return make_dropout_mask(options_, draw, site, row0 + b.rows, row0, place_.hidden, b.col0);
}

DropoutMask BlockDropout::probs_mask(DropoutDraw draw, std::int64_t batch0, std::int64_t head0,
                                     std::int64_t heads_local) const {
  const std::int64_t s = place_.sequence;
  DropoutMask mask = make_dropout_mask(options_, draw, DropoutSite::attention_probs, s, 0, s, 0);
  mask.heads_local = heads_local;
  if (keying_ == DropoutKeying::local) {
    mask.heads_global = heads_local;
  } else {
    mask.heads_global = place_.heads;
    mask.batch0 = place_.first_sequence + batch0;
    mask.head0 = head0;
  }
  return mask;
}

}  // namespace tplab
