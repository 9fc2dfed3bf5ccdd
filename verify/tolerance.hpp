/// @file
/// How close a result must be to the reference: one place for every dtype.
#pragma once

#include <string>
#include <string_view>

#include "core/dtype.hpp"

namespace tplab::verify {

/// An element passes when |got - ref| <= atol + rtol * |ref|, and a tensor passes when every
/// element does, none is NaN or Inf, and its relative L2 error ||got - ref|| / ||ref|| is at
/// most max_rel_l2. atol is atol_scale times the RMS of the reference tensor, so one setting
/// fits tensors of every magnitude (a weight gradient sums over all tokens; a bias is O(1)).
struct Tolerance {
  /// atol over the RMS of the reference tensor.
  double atol_scale = 0;
  /// The relative tolerance of an element.
  double rtol = 0;
  /// The largest relative L2 error ||got - ref|| / ||ref|| a tensor may have.
  double max_rel_l2 = 0;
  std::string_view basis;  ///< where the numbers come from, for reports
};

/// A gradient that is exactly zero in exact arithmetic, so both sides compute round-off noise
/// and a relative error means nothing. It is checked with |got - ref| <= atol alone, atol taken
/// from the scale of a sibling tensor whose terms have the same size.
struct ZeroGradient {
  /// The gradient: "d_bk".
  std::string_view tensor;
  /// The sibling whose RMS sets atol: "d_bq".
  std::string_view scale_from;
  /// Why it is zero, for reports.
  std::string_view why;
};

/// The one such gradient of the block: the key bias adds q_i . bk to every score of query row
/// i alike, and softmax ignores a shift shared by a whole row, so bk never changes the output.
inline constexpr ZeroGradient kZeroGradients[] = {
    {"d_bk", "d_bq", "softmax ignores the shift q.bk shared by a row's scores"}};

/// The entry of kZeroGradients for `tensor`, the block's ("d_bk") or one of a GPT layer's
/// ("d_layer1.bk"), or nullptr.
const ZeroGradient* zero_gradient(std::string_view tensor);

/// The sibling whose RMS sets the atol of `tensor`, a gradient zero in exact arithmetic, in its
/// own layer ("d_bk" -> "d_bq", "d_layer1.bk" -> "d_layer1.bq"); empty for any other tensor.
std::string zero_gradient_sibling(std::string_view tensor);

/// The tolerance for results computed in `dtype` against the f64 reference. Exact runs
/// (integer inputs, linear layers only) get zero.
Tolerance tolerance_for(DType dtype, bool exact);

}  // namespace tplab::verify
