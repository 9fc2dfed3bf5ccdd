#include "device/bf16_widening.hpp"

#include <cstdlib>
#include <new>
#include <span>

#include "core/bf16.hpp"
#include "device/eigen_views.hpp"

namespace tplab::cpu {

Tensor host_f32(const Extents& extents) {
  const std::size_t bytes = std::max<std::size_t>(
      64, (static_cast<std::size_t>(element_count(extents)) * sizeof(float) + 63) / 64 * 64);
  auto* raw = static_cast<std::byte*>(std::aligned_alloc(64, bytes));
  if (raw == nullptr) throw std::bad_alloc();
  return Tensor(extents, DType::f32, DeviceKind::cpu,
                std::shared_ptr<std::byte>(raw, [](std::byte* p) { std::free(p); }));
}

namespace {

/// The elements of a bf16 or f32 tensor.
template <typename T>
std::span<T> elements(Tensor& t) {
  return {t.data_as<T>(), static_cast<std::size_t>(t.numel())};
}

}  // namespace

WidenedBf16::~WidenedBf16() {
  for (Copy& c : copies_) {
    if (c.written) round_to_bf16(elements<float>(c.wide), elements<Bf16Bits>(c.original));
  }
}

void WidenedBf16::note_dtype(const Tensor& t) {
  const bool bf16 = t.dtype() == DType::bf16;
  if (!bf16_) bf16_ = bf16;
  require(*bf16_ == bf16, operation_,
          fmt::format("mixed dtypes: {} beside {}", dtype_name(t.dtype()),
                      *bf16_ ? "bf16" : "a wider dtype"));
}

WidenedBf16::Copy& WidenedBf16::copy_of(const Tensor& t) {
  for (Copy& c : copies_) {
    if (c.original.data() == t.data() && c.original.extents() == t.extents()) return c;
  }
  Copy& c = copies_.emplace_back(Copy{t, host_f32(t.extents()), false});
  widen_bf16(elements<Bf16Bits>(c.original), elements<float>(c.wide));
  return c;
}

const Tensor& WidenedBf16::in(const Tensor& t) {
  note_dtype(t);
  if (t.dtype() != DType::bf16) return t;
  return copy_of(t).wide;
}

Tensor& WidenedBf16::out(Tensor& t) {
  note_dtype(t);
  if (t.dtype() != DType::bf16) return t;
  Copy& c = copy_of(t);
  c.written = true;
  return c.wide;
}

}  // namespace tplab::cpu
