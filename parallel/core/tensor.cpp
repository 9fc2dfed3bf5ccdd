#include "core/tensor.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"

namespace tplab {

std::string to_string(const Extents& extents) {
  return fmt::format("[{}]", fmt::join(extents, ", "));
}

std::int64_t element_count(const Extents& extents) {
  std::int64_t n = 1;
  for (auto e : extents) n *= e;
  return n;
}

DType parse_dtype(std::string_view name) {
  if (const auto dtype = value_in(kDTypeNames, name)) return *dtype;
  throw UsageError(fmt::format("unknown dtype '{}' (use {})", name, names_text(kDTypeNames)));
}

Tensor::Tensor(Extents extents, DType dtype, DeviceKind device, std::shared_ptr<std::byte> storage,
               std::size_t offset)
    : extents_(std::move(extents)),
      dtype_(dtype),
      device_(device),
      storage_(std::move(storage)),
      offset_(offset) {
  for (auto e : extents_) check(e >= 0, "negative tensor extent in " + to_string(extents_));
}

std::int64_t Tensor::rows() const {
  if (extents_.empty()) return 1;
  return numel() / extents_.back();
}

std::int64_t Tensor::cols() const {
  return extents_.empty() ? 1 : extents_.back();
}

Tensor Tensor::slice_rows(std::int64_t first, std::int64_t count) const {
  check(!extents_.empty() && first >= 0 && count >= 0 && first + count <= extents_[0],
        fmt::format("slice_rows({}, {}) out of range for {}", first, count, to_string(extents_)));
  Extents sliced = extents_;
  sliced[0] = count;
  const std::size_t row_bytes =
      static_cast<std::size_t>(numel() / std::max<std::int64_t>(extents_[0], 1)) *
      dtype_size(dtype_);
  return Tensor(sliced, dtype_, device_, storage_,
                offset_ + static_cast<std::size_t>(first) * row_bytes);
}

Tensor Tensor::reshaped(Extents extents) const {
  check(element_count(extents) == numel(),
        fmt::format("cannot reshape {} to {}", to_string(extents_), to_string(extents)));
  return Tensor(std::move(extents), dtype_, device_, storage_, offset_);
}

}  // namespace tplab
