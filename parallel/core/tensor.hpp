/// @file
/// Tensor: a typed, row-major block of memory on one device, owned or viewed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace tplab {

/// Extents of a tensor, outermost first (row-major).
using Extents = std::vector<std::int64_t>;

/// "[4, 16]".
std::string to_string(const Extents& extents);

/// Number of elements of a tensor with these extents.
std::int64_t element_count(const Extents& extents);

/// A typed block of memory on one device. Copying a Tensor copies the handle, not the data:
/// views and copies share the storage, which lives as long as any of them.
class Tensor {
 public:
  Tensor() = default;
  /// Wraps `storage` (allocated by a Device) starting `offset` bytes in.
  Tensor(Extents extents, DType dtype, DeviceKind device, std::shared_ptr<std::byte> storage,
         std::size_t offset = 0);

  /// The extents, outermost first.
  const Extents& extents() const { return extents_; }
  /// Extent i.
  std::int64_t dim(std::size_t i) const { return extents_.at(i); }
  /// Number of extents (2 for a matrix).
  std::size_t rank() const { return extents_.size(); }
  /// Number of elements.
  std::int64_t numel() const { return element_count(extents_); }
  /// Bytes of the elements.
  std::size_t bytes() const { return static_cast<std::size_t>(numel()) * dtype_size(dtype_); }
  /// Element type.
  DType dtype() const { return dtype_; }
  /// Where the memory lives.
  DeviceKind device() const { return device_; }
  /// False for a default-constructed tensor with no memory.
  bool defined() const { return storage_ != nullptr; }

  /// Rows of a 2-D tensor, or the product of all but the last extent.
  std::int64_t rows() const;
  /// The last extent (1 for a scalar).
  std::int64_t cols() const;

  /// The first element's address (on the tensor's device).
  void* data() { return storage_.get() + offset_; }
  /// The first element's address (on the tensor's device).
  const void* data() const { return storage_.get() + offset_; }
  /// The elements as T (T must match dtype()).
  template <typename T>
  T* data_as() {
    return static_cast<T*>(data());
  }
  /// The elements as T (T must match dtype()).
  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(data());
  }

  /// A view of `count` consecutive slices along the first extent, starting at `first`.
  Tensor slice_rows(std::int64_t first, std::int64_t count) const;
  /// The same memory with other extents (the element count must match).
  Tensor reshaped(Extents extents) const;

 private:
  Extents extents_;
  DType dtype_ = DType::f32;
  DeviceKind device_ = DeviceKind::cpu;
  std::shared_ptr<std::byte> storage_;
  std::size_t offset_ = 0;
};

}  // namespace tplab
