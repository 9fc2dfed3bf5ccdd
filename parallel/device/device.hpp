/// @file
/// Device: the compute a rank needs, behind one interface.
///
/// The layers of every scheme are written once against this interface, so the same code runs
/// on CpuDevice (Eigen, one thread per rank) and on a GPU device. Every operation works on
/// row-major Tensors of this device. Matrices are 2-D tensors [rows, cols]; batched operations
/// take 3-D tensors [batch, rows, cols].
#pragma once

#include <cstdint>
#include <span>

#include "core/tensor.hpp"

namespace tplab {

/// Whether a matmul operand is used as stored or transposed.
enum class Transpose {
  no,   ///< as stored
  yes,  ///< transposed
};

/// The operations every layer is written against; see the file comment.
class Device {
 public:
  virtual ~Device() = default;
  /// cpu or cuda.
  virtual DeviceKind kind() const = 0;
  /// A short description for reports, e.g. "cpu (Eigen 3.4, 1 thread)".
  virtual std::string description() const = 0;
  /// Waits until every operation issued so far has finished. Operations of a device that runs
  /// them asynchronously (CudaDevice) may return before they finish; timers call this first.
  virtual void synchronize() {}

  // ---- memory -------------------------------------------------------------------------------
  /// Uninitialised tensor.
  virtual Tensor empty(const Extents& extents, DType dtype) = 0;
  /// Tensor of zeros.
  Tensor zeros(const Extents& extents, DType dtype);
  /// Every element of x = value.
  virtual void fill(Tensor& x, double value) = 0;
  /// dst = src (same extents and dtype).
  virtual void copy(const Tensor& src, Tensor& dst) = 0;
  /// Loads host values (any precision) into a tensor of this device, converting to its dtype.
  virtual void upload(std::span<const double> host, Tensor& dst) = 0;
  /// Reads a tensor back to the host as f64.
  virtual void download(const Tensor& src, std::span<double> host) = 0;

  // ---- linear algebra -----------------------------------------------------------------------
  /// C = alpha op(A) op(B) + beta C for 2-D tensors.
  virtual void matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                      double alpha = 1.0, double beta = 0.0) = 0;
  /// The same for every batch index of 3-D tensors [batch, rows, cols].
  virtual void batched_matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb,
                              Tensor& c, double alpha = 1.0, double beta = 0.0) = 0;

  // ---- element-wise and row-wise ------------------------------------------------------------
  /// y += x (same extents): residual connections and gradient accumulation.
  virtual void add_inplace(Tensor& y, const Tensor& x) = 0;
  /// x *= alpha.
  virtual void scale(Tensor& x, double alpha) = 0;
  /// y[r, :] += bias for every row r (bias has y.cols() elements).
  virtual void add_bias(Tensor& y, const Tensor& bias) = 0;
  /// out = sum over rows of x (+ beta * out): the gradient of a bias.
  virtual void column_sum(const Tensor& x, Tensor& out, double beta = 0.0) = 0;
  /// y = gelu_tanh(x).
  virtual void gelu_forward(const Tensor& x, Tensor& y) = 0;
  /// dx = dy * gelu_tanh'(x).
  virtual void gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx) = 0;

  // ---- attention ----------------------------------------------------------------------------
  /// probs = softmax(scale * scores) over the last extent with a causal mask (key j > query i
  /// gets 0); scores and probs are [batch, s, s].
  virtual void causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) = 0;
  /// dscores = scale * probs * (dprobs - rowsum(dprobs * probs)).
  virtual void causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                                       Tensor& dscores) = 0;
  /// [b*s, h] (token-major; head i in columns i*h/n..(i+1)*h/n-1) -> [b*n, s, h/n] (head-major).
  virtual void split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads,
                           Tensor& out) = 0;
  /// The inverse of split_heads: [b*n, s, h/n] -> [b*s, h].
  virtual void merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads,
                           Tensor& out) = 0;

  /// Row-major index of the first NaN or Inf in x, or -1 when every element is finite.
  virtual std::int64_t first_nonfinite(const Tensor& x) = 0;

  // ---- LayerNorm, split into the parts a distributed LayerNorm needs ------------------------
  /// out[r] = sum_c x[r, c] (+ beta * out[r]).
  virtual void row_sum(const Tensor& x, Tensor& out) = 0;
  /// out[r] = sum_c (x[r, c] - mean[r])^2: the second pass of a two-pass variance.
  virtual void row_sum_squared_deviation(const Tensor& x, const Tensor& mean, Tensor& out) = 0;
  /// xhat = (x - mean) * rstd and y = xhat * gamma + beta, where rstd[r] = 1/sqrt(var[r] + eps)
  /// is written too (saved for backward).
  virtual void layernorm_apply(const Tensor& x, const Tensor& mean, const Tensor& var, double eps,
                               const Tensor& gamma, const Tensor& beta, Tensor& xhat, Tensor& rstd,
                               Tensor& y) = 0;
  /// sums[r] = (sum_c g[r, c], sum_c g[r, c] xhat[r, c]) with g = dy * gamma; sums is [rows, 2].
  virtual void layernorm_backward_sums(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                       Tensor& sums) = 0;
  /// dx = rstd * (g - mean(g) - xhat * mean(g xhat)), the means over `features` columns taken
  /// from the (group-wide) sums.
  virtual void layernorm_backward_input(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                        const Tensor& rstd, const Tensor& sums,
                                        std::int64_t features, Tensor& dx) = 0;
  /// dgamma = column sums of dy * xhat, dbeta = column sums of dy.
  virtual void layernorm_backward_params(const Tensor& dy, const Tensor& xhat, Tensor& dgamma,
                                         Tensor& dbeta) = 0;

  // ---- a vocabulary split over ranks: embedding lookup and cross-entropy ----------------------
  // Token ids and targets are host indices into this rank's shard of the vocabulary, already
  // shifted by the shard's first id; an index outside [0, shard size) belongs to another rank
  // and is skipped. (A GPU device copies them to the device first.)
  /// out[r, :] = table[rows[r], :], or 0 where rows[r] is outside the table: the lookup of one
  /// vocabulary shard. out is [rows.size(), table.cols()].
  virtual void gather_rows(const Tensor& table, std::span<const std::int64_t> rows,
                           Tensor& out) = 0;
  /// table[rows[r], :] += src[r, :] for r = 0, 1, ... in order, skipping rows outside the
  /// table: the embedding's gradient, summed over the tokens in a fixed order.
  virtual void scatter_add_rows(const Tensor& src, std::span<const std::int64_t> rows,
                                Tensor& table) = 0;
  /// out[r] = max_c x[r, c].
  virtual void row_max(const Tensor& x, Tensor& out) = 0;
  /// sums[r] = (sum_c exp(logits[r, c] - max[r]), logits[r, targets[r]] or 0 when the target
  /// is outside this shard): the two per-row sums of a vocabulary-parallel cross-entropy.
  /// sums is [rows, 2].
  virtual void cross_entropy_sums(const Tensor& logits, const Tensor& max,
                                  std::span<const std::int64_t> targets, Tensor& sums) = 0;
  /// dlogits[r, c] = scale * (exp(logits[r, c] - max[r]) / sums[r, 0] - [c == targets[r]]),
  /// with max and sums[:, 0] already reduced over the whole vocabulary.
  virtual void cross_entropy_backward(const Tensor& logits, const Tensor& max, const Tensor& sums,
                                      std::span<const std::int64_t> targets, double scale,
                                      Tensor& dlogits) = 0;
};

}  // namespace tplab
