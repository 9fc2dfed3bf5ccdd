/// @file
/// Sublayer: the attention or MLP half of a block, as one scheme computes it.
#pragma once

#include "core/tensor.hpp"
#include "scheme/parallel_module.hpp"

namespace tplab {

/// One half of a pre-LN block (attention or MLP) on one rank. Input and output have the
/// scheme's activation layout, so residual connections are local additions.
class Sublayer {
 public:
  virtual ~Sublayer() = default;
  /// Returns a fresh tensor that the sublayer does not keep (the block adds the residual
  /// into it in place).
  virtual Tensor forward(const Tensor& x) = 0;
  /// Gradient of the output -> gradient of the input; stores the parameter gradients.
  virtual Tensor backward(const Tensor& dy) = 0;
  /// Adds this sublayer's gradient shards to `out` ("d_wq" -> shard).
  virtual void collect_gradients(TensorMap& out) const = 0;
  /// Lets go of every tensor forward kept for backward (Recompute::full keeps none of them). A
  /// sublayer that keeps nothing need not say so; one that keeps something and does not let go
  /// fails verify, which measures what a block keeps.
  virtual void forget() {}
};

/// Adds the gradients of one linear layer (anything with weight_grad() and bias_grad()) to
/// `out` under "d_<weight>" and "d_<bias>".
template <typename Linear>
void add_linear_gradients(TensorMap& out, const char* weight, const char* bias,
                          const Linear& layer) {
  out.emplace(std::string("d_") + weight, layer.weight_grad());
  out.emplace(std::string("d_") + bias, layer.bias_grad());
}

/// Adds the gradients of an attention sublayer's four linears (any scheme's) to `out`: "d_wq",
/// "d_bq" from `query`, and likewise for key, value and the output projection.
template <typename Linear>
void add_attention_gradients(TensorMap& out, const Linear& query, const Linear& key,
                             const Linear& value, const auto& projection) {
  add_linear_gradients(out, "wq", "bq", query);
  add_linear_gradients(out, "wk", "bk", key);
  add_linear_gradients(out, "wv", "bv", value);
  add_linear_gradients(out, "wo", "bo", projection);
}

}  // namespace tplab
