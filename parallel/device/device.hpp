/// @file
/// Device: the compute a rank needs, behind one interface.
///
/// The layers of every scheme are written once against this interface, so the same code runs
/// on CpuDevice (Eigen, one thread per rank) and on a GPU device. Every operation works on
/// row-major Tensors of this device. Matrices are 2-D tensors [rows, cols]; batched operations
/// take 3-D tensors [batch, rows, cols].
///
/// The operations come in families (matrix products, element-wise, GELU, softmax, heads,
/// LayerNorm, and training's: the GPT model's vocabulary, the optimizer). Each family is one
/// interface below; a backend implements it in device/ops/FAMILY_cpu.cpp and FAMILY.cu side by
/// side (the CPU's bf16 of every family but the products: ops/bf16_families_cpu.cpp). Device
/// keeps memory for itself and calls each operation by name (`device.matmul(...)`), passing it
/// to the family's object. Adding one touches this file, those two and, but for a product, bf16's.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

#include "core/tensor.hpp"
#include "device/allocation_accounting.hpp"
#include "device/dropout_mask.hpp"

namespace tplab {

class TraceRecorder;  // trace/trace_recorder.hpp
class DeferredSpan;

/// Whether a matmul operand is used as stored or transposed.
enum class Transpose {
  no,   ///< as stored
  yes,  ///< transposed
};

// ---- the families of operations -------------------------------------------------------------

/// Matrix products (device/ops/gemm_cpu.cpp, gemm.cu).
class GemmOps {
 public:
  virtual ~GemmOps() = default;
  /// C = alpha op(A) op(B) + beta C for 2-D tensors: [m, k] x [k, n] -> [m, n] after the
  /// transposes.
  virtual void matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                      double alpha, double beta) = 0;
  /// The same for every batch index of 3-D tensors: [batch, m, k] x [batch, k, n] ->
  /// [batch, m, n].
  virtual void batched_matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb,
                              Tensor& c, double alpha, double beta) = 0;
};

/// Element-wise and bias operations (device/ops/elementwise_cpu.cpp, elementwise.cu).
class ElementwiseOps {
 public:
  virtual ~ElementwiseOps() = default;
  /// y += x (same extents): residual connections and gradient accumulation.
  virtual void add_inplace(Tensor& y, const Tensor& x) = 0;
  /// x *= alpha.
  virtual void scale(Tensor& x, double alpha) = 0;
  /// y[r, :] += bias for every row r (bias has y.cols() elements).
  virtual void add_bias(Tensor& y, const Tensor& bias) = 0;
  /// out = sum over rows of x (+ beta * out): the gradient of a bias.
  virtual void column_sum(const Tensor& x, Tensor& out, double beta) = 0;
  /// x *= mask's scale where the mask keeps an element, 0 where it drops it: forward on an
  /// activation, backward on its gradient (the same mask). x is [groups, rows, cols] or a
  /// matrix [rows, cols] (one group); the mask says where those elements lie globally.
  virtual void dropout(Tensor& x, const DropoutMask& mask) = 0;
};

/// The tanh approximation of GELU (device/ops/gelu_cpu.cpp, gelu.cu).
class GeluOps {
 public:
  virtual ~GeluOps() = default;
  /// y = gelu_tanh(x).
  virtual void gelu_forward(const Tensor& x, Tensor& y) = 0;
  /// dx = dy * gelu_tanh'(x).
  virtual void gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx) = 0;
};

/// The causal softmax of attention (device/ops/softmax_cpu.cpp, softmax.cu).
class SoftmaxOps {
 public:
  virtual ~SoftmaxOps() = default;
  /// probs = softmax(scale * scores) over the last extent with a causal mask (key j > query i
  /// gets 0); scores and probs are [batch, s, s].
  virtual void causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) = 0;
  /// dscores = scale * probs * (dprobs - rowsum(dprobs * probs)).
  virtual void causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                                       Tensor& dscores) = 0;
};

/// Attention heads between token-major and head-major layouts (device/ops/heads_cpu.cpp,
/// heads.cu).
class HeadsOps {
 public:
  virtual ~HeadsOps() = default;
  /// [b*s, h] (token-major; head i in columns i*h/n..(i+1)*h/n-1) -> [b*n, s, h/n] (head-major).
  virtual void split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads,
                           Tensor& out) = 0;
  /// The inverse of split_heads: [b*n, s, h/n] -> [b*s, h].
  virtual void merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads,
                           Tensor& out) = 0;
};

/// LayerNorm, split into the parts a distributed LayerNorm needs (device/ops/layernorm_cpu.cpp,
/// layernorm.cu); layers/layernorm.cpp puts them together with the collectives between them.
class LayerNormOps {
 public:
  virtual ~LayerNormOps() = default;
  /// out[r] = sum_c x[r, c].
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
};

// ---- the GPT model's own family: not used by the transformer block ----------------------------

/// A vocabulary split over ranks: embedding lookup and cross-entropy
/// (device/ops/vocabulary_cpu.cpp, vocabulary.cu), used only by the GPT model (gpt/). Token ids and
/// targets are host indices into this rank's shard of the vocabulary, already shifted by the
/// shard's first id; an index outside [0, shard size) belongs to another rank and is skipped. (A
/// GPU device copies them to the device first.)
class VocabularyOps {
 public:
  virtual ~VocabularyOps() = default;
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
  /// x[r, c] = value for every row r and every column c >= col0: the padded ids of a
  /// vocabulary shard masked out of the softmax (value -infinity: no probability, no gradient).
  virtual void fill_columns_from(Tensor& x, std::int64_t col0, double value) = 0;
};

/// One step of AdamW (Loshchilov & Hutter 2019) as torch.optim.AdamW takes it.
struct AdamWStep {
  double learning_rate = 0;  ///< lr
  double beta1 = 0;          ///< decay of the first moment m
  double beta2 = 0;          ///< decay of the second moment v
  double eps = 0;            ///< added to sqrt(v_hat)
  double weight_decay = 0;   ///< decoupled: p -= lr * weight_decay * p (0 for biases and norms)
  std::int64_t step = 0;     ///< t, from 1: the bias corrections 1 - beta^t
};

/// The optimizer's element-wise work on a parameter shard and its gradient
/// (device/ops/optimizer_cpu.cpp, optimizer.cu).
class OptimizerOps {
 public:
  virtual ~OptimizerOps() = default;
  /// sum_i x[i]^2, accumulated in f64 in a fixed order, so the same tensor gives the same bits
  /// on every rank: a shard's part of the global gradient norm.
  virtual double sum_of_squares(const Tensor& x) = 0;
  /// With the moments m, v of p's extents and dtype, and g the gradient:
  ///   p -= lr * weight_decay * p
  ///   m  = beta1 m + (1 - beta1) g          v = beta2 v + (1 - beta2) g^2
  ///   p -= lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)
  /// computed in the accumulation type of p's dtype.
  virtual void adamw_update(Tensor& p, const Tensor& g, Tensor& m, Tensor& v,
                            const AdamWStep& step) = 0;
};

/// One object of each family: what a backend hands to Device when it is made.
struct DeviceFamilies {
  std::unique_ptr<GemmOps> gemm;                ///< matrix products
  std::unique_ptr<ElementwiseOps> elementwise;  ///< element-wise and bias
  std::unique_ptr<GeluOps> gelu;                ///< GELU
  std::unique_ptr<SoftmaxOps> softmax;          ///< causal softmax
  std::unique_ptr<HeadsOps> heads;              ///< split and merge heads
  std::unique_ptr<LayerNormOps> layernorm;      ///< the parts of LayerNorm
  std::unique_ptr<VocabularyOps> vocabulary;    ///< embedding and cross-entropy (GPT only)
  std::unique_ptr<OptimizerOps> optimizer;      ///< gradient norms and AdamW (training only)
};

// ---- the device -----------------------------------------------------------------------------

/// The operations every layer is written against; see the file comment. Memory and read-back
/// belong to the device itself; the compute operations are those of its families, each called
/// here by its own name.
class Device {
 public:
  virtual ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  /// cpu or cuda.
  virtual DeviceKind kind() const = 0;
  /// A short description for reports, e.g. "cpu (Eigen 3.4, 1 thread)".
  virtual std::string description() const = 0;
  /// Waits until every operation issued so far has finished. Operations of a device that runs
  /// them asynchronously (CudaDevice) may return before they finish; timers call this first.
  virtual void synchronize() {}

  // ---- memory and read-back -----------------------------------------------------------------
  /// Uninitialised tensor, its storage in allocations().
  virtual Tensor empty(const Extents& extents, DType dtype) = 0;
  /// The bytes of this device's tensor storage live now, and the most live at once: every
  /// tensor empty() (and zeros()) made, until its last handle goes away.
  const AllocationAccounting& allocations() const { return allocations_; }
  /// The same, to reset its high-water mark or, for a backend's empty(), to track storage.
  AllocationAccounting& allocations() { return allocations_; }
  /// Tensor of zeros.
  Tensor zeros(const Extents& extents, DType dtype);
  /// Every element of x = value.
  void fill(Tensor& x, double value) {
    const OpScope op(*this, "fill", {&x});
    fill_values(x, value);
  }
  /// dst = src (same extents and dtype).
  void copy(const Tensor& src, Tensor& dst) {
    const OpScope op(*this, "copy", {&src, &dst});
    copy_values(src, dst);
  }
  /// Loads host values (any precision) into a tensor of this device, converting to its dtype.
  void upload(std::span<const double> host, Tensor& dst) {
    const OpScope op(*this, "upload", {&dst});
    upload_values(host, dst);
  }
  /// Reads a tensor back to the host as f64.
  void download(const Tensor& src, std::span<double> host) {
    const OpScope op(*this, "download", {&src});
    download_values(src, host);
  }
  /// Row-major index of the first NaN or Inf in x, or -1 when every element is finite.
  std::int64_t first_nonfinite(const Tensor& x) {
    const OpScope op(*this, "first_nonfinite", {&x});
    return find_nonfinite(x);
  }

  // ---- tracing --------------------------------------------------------------------------------
  /// Puts every operation of this device below (memory, read-back and the families') on
  /// `trace`'s timeline as a slice with its operands' extents and dtype; null, the default,
  /// records nothing and costs each operation one comparison. A device that runs operations
  /// asynchronously times them on its own clock as well (start_op_timer). `trace` must outlive
  /// its use here.
  void trace_into(TraceRecorder* trace);
  /// The trace operations go to, or null: code that runs steps marks them on it (TraceScope).
  TraceRecorder* trace() const { return trace_; }

  /// One traced operation timed on a backend's own clock (start_op_timer).
  class OpTimer {
   public:
    virtual ~OpTimer() = default;
    /// Marks the operation's end (after it was issued); its span, read when the trace is
    /// written, or null when the backend could not mark it. Throws nothing.
    virtual std::unique_ptr<DeferredSpan> finish() = 0;
  };

  // ---- the families, each operation by its name (documented on its family above) -----------
  /// GemmOps::matmul.
  void matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
              double alpha = 1.0, double beta = 0.0) {
    const OpScope op(*this, "matmul", {&a, &b, &c}, product_form(ta, tb));
    families_.gemm->matmul(a, ta, b, tb, c, alpha, beta);
  }
  /// GemmOps::batched_matmul.
  void batched_matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                      double alpha = 1.0, double beta = 0.0) {
    const OpScope op(*this, "batched_matmul", {&a, &b, &c}, product_form(ta, tb));
    families_.gemm->batched_matmul(a, ta, b, tb, c, alpha, beta);
  }

  /// ElementwiseOps::add_inplace.
  void add_inplace(Tensor& y, const Tensor& x) {
    const OpScope op(*this, "add_inplace", {&y, &x});
    families_.elementwise->add_inplace(y, x);
  }
  /// ElementwiseOps::scale.
  void scale(Tensor& x, double alpha) {
    const OpScope op(*this, "scale", {&x});
    families_.elementwise->scale(x, alpha);
  }
  /// ElementwiseOps::add_bias.
  void add_bias(Tensor& y, const Tensor& bias) {
    const OpScope op(*this, "add_bias", {&y, &bias});
    families_.elementwise->add_bias(y, bias);
  }
  /// ElementwiseOps::column_sum.
  void column_sum(const Tensor& x, Tensor& out, double beta = 0.0) {
    const OpScope op(*this, "column_sum", {&x, &out});
    families_.elementwise->column_sum(x, out, beta);
  }
  /// ElementwiseOps::dropout.
  void dropout(Tensor& x, const DropoutMask& mask) {
    const OpScope op(*this, "dropout", {&x});
    families_.elementwise->dropout(x, mask);
  }

  /// GeluOps::gelu_forward.
  void gelu_forward(const Tensor& x, Tensor& y) {
    const OpScope op(*this, "gelu_forward", {&x, &y});
    families_.gelu->gelu_forward(x, y);
  }
  /// GeluOps::gelu_backward.
  void gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx) {
    const OpScope op(*this, "gelu_backward", {&x, &dy, &dx});
    families_.gelu->gelu_backward(x, dy, dx);
  }

  /// SoftmaxOps::causal_softmax_forward.
  void causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) {
    const OpScope op(*this, "causal_softmax_forward", {&scores, &probs});
    families_.softmax->causal_softmax_forward(scores, scale, probs);
  }
  /// SoftmaxOps::causal_softmax_backward.
  void causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                               Tensor& dscores) {
    const OpScope op(*this, "causal_softmax_backward", {&probs, &dprobs, &dscores});
    families_.softmax->causal_softmax_backward(probs, dprobs, scale, dscores);
  }

  /// HeadsOps::split_heads.
  void split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) {
    const OpScope op(*this, "split_heads", {&x, &out});
    families_.heads->split_heads(x, batch, heads, out);
  }
  /// HeadsOps::merge_heads.
  void merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) {
    const OpScope op(*this, "merge_heads", {&x, &out});
    families_.heads->merge_heads(x, batch, heads, out);
  }

  /// LayerNormOps::row_sum.
  void row_sum(const Tensor& x, Tensor& out) {
    const OpScope op(*this, "row_sum", {&x, &out});
    families_.layernorm->row_sum(x, out);
  }
  /// LayerNormOps::row_sum_squared_deviation.
  void row_sum_squared_deviation(const Tensor& x, const Tensor& mean, Tensor& out) {
    const OpScope op(*this, "row_sum_squared_deviation", {&x, &mean, &out});
    families_.layernorm->row_sum_squared_deviation(x, mean, out);
  }
  /// LayerNormOps::layernorm_apply.
  void layernorm_apply(const Tensor& x, const Tensor& mean, const Tensor& var, double eps,
                       const Tensor& gamma, const Tensor& beta, Tensor& xhat, Tensor& rstd,
                       Tensor& y) {
    const OpScope op(*this, "layernorm_apply", {&x, &gamma, &y});
    families_.layernorm->layernorm_apply(x, mean, var, eps, gamma, beta, xhat, rstd, y);
  }
  /// LayerNormOps::layernorm_backward_sums.
  void layernorm_backward_sums(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                               Tensor& sums) {
    const OpScope op(*this, "layernorm_backward_sums", {&dy, &gamma, &sums});
    families_.layernorm->layernorm_backward_sums(dy, gamma, xhat, sums);
  }
  /// LayerNormOps::layernorm_backward_input.
  void layernorm_backward_input(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                const Tensor& rstd, const Tensor& sums, std::int64_t features,
                                Tensor& dx) {
    const OpScope op(*this, "layernorm_backward_input", {&dy, &xhat, &dx});
    families_.layernorm->layernorm_backward_input(dy, gamma, xhat, rstd, sums, features, dx);
  }
  /// LayerNormOps::layernorm_backward_params.
  void layernorm_backward_params(const Tensor& dy, const Tensor& xhat, Tensor& dgamma,
                                 Tensor& dbeta) {
    const OpScope op(*this, "layernorm_backward_params", {&dy, &dgamma, &dbeta});
    families_.layernorm->layernorm_backward_params(dy, xhat, dgamma, dbeta);
  }

  /// VocabularyOps::gather_rows (GPT only).
  void gather_rows(const Tensor& table, std::span<const std::int64_t> rows, Tensor& out) {
    const OpScope op(*this, "gather_rows", {&table, &out});
    families_.vocabulary->gather_rows(table, rows, out);
  }
  /// VocabularyOps::scatter_add_rows (GPT only).
  void scatter_add_rows(const Tensor& src, std::span<const std::int64_t> rows, Tensor& table) {
    const OpScope op(*this, "scatter_add_rows", {&src, &table});
    families_.vocabulary->scatter_add_rows(src, rows, table);
  }
  /// VocabularyOps::row_max (GPT only).
  void row_max(const Tensor& x, Tensor& out) {
    const OpScope op(*this, "row_max", {&x, &out});
    families_.vocabulary->row_max(x, out);
  }
  /// VocabularyOps::cross_entropy_sums (GPT only).
  void cross_entropy_sums(const Tensor& logits, const Tensor& max,
                          std::span<const std::int64_t> targets, Tensor& sums) {
    const OpScope op(*this, "cross_entropy_sums", {&logits, &sums});
    families_.vocabulary->cross_entropy_sums(logits, max, targets, sums);
  }
  /// VocabularyOps::cross_entropy_backward (GPT only).
  void cross_entropy_backward(const Tensor& logits, const Tensor& max, const Tensor& sums,
                              std::span<const std::int64_t> targets, double scale,
                              Tensor& dlogits) {
    const OpScope op(*this, "cross_entropy_backward", {&logits, &dlogits});
    families_.vocabulary->cross_entropy_backward(logits, max, sums, targets, scale, dlogits);
  }
  /// VocabularyOps::fill_columns_from (GPT only).
  void fill_columns_from(Tensor& x, std::int64_t col0, double value) {
    const OpScope op(*this, "fill_columns_from", {&x});
    families_.vocabulary->fill_columns_from(x, col0, value);
  }

  /// OptimizerOps::sum_of_squares (training only).
  double sum_of_squares(const Tensor& x) {
    const OpScope op(*this, "sum_of_squares", {&x});
    return families_.optimizer->sum_of_squares(x);
  }
  /// OptimizerOps::adamw_update (training only).
  void adamw_update(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, const AdamWStep& step) {
    const OpScope op(*this, "adamw_update", {&p, &g});
    families_.optimizer->adamw_update(p, g, m, v, step);
  }

 protected:
  /// A backend passes one object of each family; every one must be present.
  explicit Device(DeviceFamilies families);

  /// fill(), as the backend does it.
  virtual void fill_values(Tensor& x, double value) = 0;
  /// copy(), as the backend does it.
  virtual void copy_values(const Tensor& src, Tensor& dst) = 0;
  /// upload(), as the backend does it.
  virtual void upload_values(std::span<const double> host, Tensor& dst) = 0;
  /// download(), as the backend does it.
  virtual void download_values(const Tensor& src, std::span<double> host) = 0;
  /// first_nonfinite(), as the backend does it.
  virtual std::int64_t find_nonfinite(const Tensor& x) = 0;

  /// The timer of a traced operation `name` just about to be issued, or null when the host's
  /// clock around the call is its time (the CPU, the default). CudaDevice records CUDA events
  /// on its stream and opens an NVTX range of the same name.
  virtual std::unique_ptr<OpTimer> start_op_timer(const char* name, TraceRecorder& trace);

 private:
  /// "A B", "A^T B", ...: how a product reads its operands, for the trace.
  static const char* product_form(Transpose ta, Transpose tb);

  /// The slice of one operation while `trace_into` is on: from construction to destruction.
  class OpScope {
   public:
    OpScope(Device& device, const char* name, std::initializer_list<const Tensor*> operands,
            const char* form = nullptr)
        : device_(device.trace_ != nullptr ? &device : nullptr) {
      if (device_ != nullptr) device_->op_began(name, operands, form);
    }
    ~OpScope() {
      if (device_ != nullptr) device_->op_ended();
    }
    OpScope(const OpScope&) = delete;
    OpScope& operator=(const OpScope&) = delete;

   private:
    Device* device_;
  };
  void op_began(const char* name, std::initializer_list<const Tensor*> operands, const char* form);
  void op_ended() noexcept;

  DeviceFamilies families_;
  AllocationAccounting allocations_;
  TraceRecorder* trace_ = nullptr;
  /// The operations being traced, innermost last (a backend's operation may call another).
  struct TracedOp;
  std::vector<TracedOp> ops_;
};

}  // namespace tplab
