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
  // The largest tensors: the MLP's activations [b*s, 4h], the attention scores [b*heads, s, s]
  // and W1 [h, 4h]. Their sizes are products of 64-bit integers, which must not wrap around.
  if (!f64_bytes_fit_int64({shape.b, shape.s, 4, shape.h}) ||
      !f64_bytes_fit_int64({shape.b, shape.heads, shape.s, shape.s}) ||
      !f64_bytes_fit_int64({4, shape.h, shape.h})) {
    return fmt::format(
        "its tensors (b*s x 4h, b*heads x s x s, h x 4h elements) hold more bytes than a 64-bit "
        "integer counts ({}), far beyond any machine's memory; use smaller sizes",
        to_string(shape));
  }
  return {};
}

bool f64_bytes_fit_int64(std::initializer_list<std::int64_t> factors) {
  std::int64_t product = 8;
  for (std::int64_t f : factors) {
    if (__builtin_mul_overflow(product, f, &product)) return false;
  }
  return true;
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
