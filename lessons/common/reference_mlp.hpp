/// @file
/// The single-device MLP a = input -> gelu(a W1 + b1) W2 + b2, forward and backward, in f64:
/// the reference the checks of lessons 03, 05 and 13 hold the learner's MLP to.
#pragma once

#include "problem.hpp"
#include "reference_bridge.hpp"

namespace tplab::lessons {

/// Everything the MLP computes: what its forward keeps and every gradient.
struct ReferenceMlp {
  reference::Matrix<double> hidden;  ///< a W1 + b1, [m, 4h]
  reference::Matrix<double> act;     ///< gelu(hidden), [m, 4h]
  reference::Matrix<double> y;       ///< act W2 + b2, [m, h]
  reference::Matrix<double> da;      ///< the gradient at the MLP's input a, [m, h]
  reference::Matrix<double> dw1;     ///< [h, 4h]
  reference::Matrix<double> dw2;     ///< [4h, h]
  reference::Vector<double> db1;     ///< [4h]
  reference::Vector<double> db2;     ///< [h]
};

/// The MLP on input `a` [m, h] with the parameters w1, b1, w2, b2 of `in`, and its backward
/// from `in`'s dy [m, h].
ReferenceMlp reference_mlp(const reference::Matrix<double>& a, const verify::HostArrays& in);

}  // namespace tplab::lessons
