#include "attention_scores.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "reference_bridge.hpp"

namespace tplab::verify {
namespace {

namespace ref = tplab::reference;

/// a = LN1(x), then a W + b for the projection named `weight` and `bias`: q or k, [m, h].
ref::Matrix<double> projection(const HostArrays& in, const char* weight, const char* bias) {
  const ref::Matrix<double> a = ref::layernorm_forward(
      to_reference_matrix<double>(in.at("x")), to_reference_vector<double>(in.at("ln1_gamma")),
      to_reference_vector<double>(in.at("ln1_beta")));
  return ref::linear_forward(a, to_reference_matrix<double>(in.at(weight)),
                             to_reference_vector<double>(in.at(bias)));
}

double scale_of(const BlockShape& shape) {
  return 1.0 / std::sqrt(static_cast<double>(shape.head_dim()));
}

}  // namespace

double exp_overflow_point(DType dtype) {
  switch (dtype) {
    case DType::f64:
      return std::log(std::numeric_limits<double>::max());
    case DType::f32:
    case DType::bf16:
      return std::log(static_cast<double>(std::numeric_limits<float>::max()));
  }
  throw InternalError("unknown dtype");
}

void raise_attention_scores(const BlockShape& shape, HostArrays& inputs, double reach) {
  const ref::Matrix<double> q = projection(inputs, "wq", "bq");
  const ref::Vector<double> bk = to_reference_vector<double>(inputs.at("bk"));
  const std::int64_t d = shape.head_dim();
  double largest = 0;
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    for (std::int64_t head = 0; head < shape.heads; ++head) {
      // query i's shift in this head: [1, d] . [d] -> a scalar
      const double shift = q.row(i).segment(head * d, d).dot(bk.segment(head * d, d).transpose());
      largest = std::max(largest, std::abs(shift) * scale_of(shape));
    }
  }
  check(largest > 0, "raise_attention_scores: every query is orthogonal to bk");
  for (double& v : inputs.at("bk").values) v *= reach / largest;
  for (double& v : inputs.at("dy").values) v = 0.0;
}

double largest_attention_score(const BlockShape& shape, const HostArrays& inputs) {
  const ref::Matrix<double> q = projection(inputs, "wq", "bq");
  const ref::Matrix<double> k = projection(inputs, "wk", "bk");
  const std::int64_t d = shape.head_dim();
  double largest = 0;
  for (std::int64_t seq = 0; seq < shape.b; ++seq) {
    for (std::int64_t head = 0; head < shape.heads; ++head) {
      // this sequence's rows of this head: [s, d] x [s, d]^T -> [s, s]
      const ref::Matrix<double> scores = q.block(seq * shape.s, head * d, shape.s, d) *
                                         k.block(seq * shape.s, head * d, shape.s, d).transpose();
      for (std::int64_t i = 0; i < shape.s; ++i) {
        for (std::int64_t j = 0; j <= i; ++j) {
          largest = std::max(largest, std::abs(scores(i, j)) * scale_of(shape));
        }
      }
    }
  }
  return largest;
}

}  // namespace tplab::verify
