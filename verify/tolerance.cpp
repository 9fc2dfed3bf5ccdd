#include "tolerance.hpp"

#include "core/error.hpp"

namespace tplab::verify {

namespace {

/// "d_layer1." of "d_layer1.bk"; empty for a tensor of no GPT layer.
std::string_view layer_prefix(std::string_view tensor) {
  const std::size_t dot = tensor.find('.');
  if (!tensor.starts_with("d_layer") || dot == std::string_view::npos) return {};
  return tensor.substr(0, dot + 1);
}

}  // namespace

const ZeroGradient* zero_gradient(std::string_view tensor) {
  const std::string_view layer = layer_prefix(tensor);
  const std::string in_block =
      layer.empty() ? std::string(tensor) : "d_" + std::string(tensor.substr(layer.size()));
  for (const ZeroGradient& z : kZeroGradients) {
    if (z.tensor == in_block) return &z;
  }
  return nullptr;
}

std::string zero_gradient_sibling(std::string_view tensor) {
  const ZeroGradient* zero = zero_gradient(tensor);
  if (zero == nullptr) return {};
  const std::string_view layer = layer_prefix(tensor);
  if (layer.empty()) return std::string(zero->scale_from);
  return std::string(layer) + std::string(zero->scale_from.substr(2));  // past "d_"
}

Tolerance tolerance_for(DType dtype, bool exact) {
  if (exact) return {0.0, 0.0, 0.0, "exact: integer inputs make every sum exact"};
  switch (dtype) {
    case DType::f64:
      // Measured over 5,400 f64 block runs of correct code: every scheme at its default
      // world sizes (seeds 1-3, overlap off and on; 1D and 1d-sp up to h = 1024, 2D to 3D at
      // 8,32,256,8) and the reliability fuzz's small random shapes, x centred and x ~ 20 +
      // U[-1, 1) (h >= 24, as verify draws it). The worst rel_l2 was 1.6e-14 and the worst
      // error 1.4e-13 of the tensor's RMS, both with x far from zero (centred: 6e-15 and
      // 1.1e-14). The bounds are about 4 times those: rel_l2 6e-14, and per element 6e-13 of
      // the RMS plus 6e-13 of the value. A relative error of 1e-12 in one rank's block of a
      // tensor (as little as a 27th of it, on 27 ranks) exceeds them, and so does a one-pass
      // LayerNorm variance with x far from zero (5e-13 at the default shape).
      return {6e-13, 6e-13, 6e-14,
              "f64 vs f64: only summation order differs; measured, 4x headroom"};
    case DType::f32:
      return {1e-5, 1e-4, 1e-5, "f32 vs f64 reference: calibrated, see README"};
    case DType::bf16:
      // Derived from bf16's unit roundoff u = 2^-8 ~ 3.9e-3: every stored intermediate is
      // rounded to bf16 (relative error <= u), while sums accumulate in f32, so a reduction of
      // k <= 4h terms adds only ~sqrt(k) 2^-24, far below u. A tensor at the end of the
      // backward pass has been rounded at about 25 stages in sequence; independent roundings
      // (standard deviation u/sqrt(3) each) give a relative L2 error near sqrt(25/3) u ~ 3u ~
      // 1.1e-2. Measured on the CPU, whose bf16 rounds where the GPU's kernels round (each
      // operation's outputs once, sums in f32): 210 runs, every scheme at its default world
      // sizes, seeds 1-4 with oneDNN's bf16 products and 1-2 with the emulated ones
      // (bench/results/bf16/verify_bf16_calibration.json). The worst rel_l2 was 1.25e-2 (3.2u;
      // bound 8u, 2.5 times that); the worst element used 92% of a bound of 16u of the RMS plus
      // 16u of the value (d_w1, 3D at 27 ranks), so the element bound is 32u, twice that.
      return {0x1p-3, 0x1p-3, 0x1p-5,
              "bf16 storage, f32 accumulation vs f64 reference: from bf16's roundoff 2^-8, "
              "measured on the CPU's bf16 (210 runs), 2x headroom"};
  }
  throw InternalError("unknown dtype");
}

}  // namespace tplab::verify
