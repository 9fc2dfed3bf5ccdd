#include "scheme/block_shape.hpp"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "core/error.hpp"

namespace tplab {

std::string to_string(const BlockShape& shape) {
  return fmt::format("b={} s={} h={} heads={}", shape.b, shape.s, shape.h, shape.heads);
}

BlockShape parse_block_shape(std::string_view text) {
  const auto malformed = [&](std::string_view why) {
    return UsageError(fmt::format(
        "--shape '{}': {}; expected four positive integers b,s,h,heads such as 2,16,64,4", text,
        why));
  };
  std::vector<std::int64_t> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view field = text.substr(start, comma - start);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (field.empty() || ec != std::errc() || end != field.data() + field.size()) {
      throw malformed(fmt::format("'{}' is not an integer", field));
    }
    if (v <= 0) throw malformed(fmt::format("{} is not positive", v));
    values.push_back(v);
    start = comma + 1;
  }
  if (values.size() != 4) throw malformed(fmt::format("got {} numbers", values.size()));
  const BlockShape shape{values[0], values[1], values[2], values[3]};
  if (const std::string why = shape_problem(shape); !why.empty()) throw malformed(why);
  return shape;
}

std::string shape_problem(const BlockShape& shape) {
  if (shape.b <= 0 || shape.s <= 0 || shape.h <= 0 || shape.heads <= 0) {
    return fmt::format("every size must be positive ({})", to_string(shape));
  }
  if (shape.h < kMinHidden) {
    return fmt::format(
        "hidden size {} is below {}: LayerNorm over so few features is (nearly) constant, so "
        "the gradients through it vanish and a comparison would only compare round-off",
        shape.h, kMinHidden);
  }
  if (shape.h % shape.heads != 0) {
    return fmt::format("hidden size {} is not divisible by {} heads", shape.h, shape.heads);
  }
  return {};
}

std::string gradient_name(std::string_view parameter) {
  return fmt::format("d_{}", parameter);
}

Extents global_extents(std::string_view tensor, const BlockShape& shape) {
  if (tensor.starts_with("d_")) tensor.remove_prefix(2);
  const std::int64_t m = shape.tokens();
  const std::int64_t h = shape.h;
  if (tensor == "x" || tensor == "dy" || tensor == "y" || tensor == "dx") return {m, h};
  if (tensor == "wq" || tensor == "wk" || tensor == "wv" || tensor == "wo") return {h, h};
  if (tensor == "w1") return {h, 4 * h};
  if (tensor == "w2") return {4 * h, h};
  if (tensor == "b1") return {4 * h};
  for (auto vec :
       {"bq", "bk", "bv", "bo", "b2", "ln1_gamma", "ln1_beta", "ln2_gamma", "ln2_beta"}) {
    if (tensor == vec) return {h};
  }
  throw InternalError(fmt::format("no block tensor is called '{}'", tensor));
}

}  // namespace tplab
