/// @file
/// The preconditions of CudaDevice's operations, checked on the host before any launch. Plain
/// C++, so they are tested on machines without a GPU. Each throws InternalError naming the
/// operation and the operands when the call cannot be right (a bug in the caller).
#pragma once

#include <cstdint>
#include <string_view>

#include "core/tensor.hpp"

namespace tplab::cuda {

/// `t` has memory and lives on the CUDA device (a host tensor here would be read as a device
/// address and fault).
void require_on_device(std::string_view op, const Tensor& t);

/// a and b have the same extents and dtype, and both live on the device.
void require_same(std::string_view op, const Tensor& a, const Tensor& b);

/// a, b and c have one dtype and live on the device (matmul operands).
void require_one_dtype(std::string_view op, const Tensor& a, const Tensor& b, const Tensor& c);

/// `per_row` holds one value per row of x, in x's dtype, on the device.
void require_per_row(std::string_view op, const Tensor& x, const Tensor& per_row);

/// `per_column` holds one value per column of x, in x's dtype, on the device.
void require_per_column(std::string_view op, const Tensor& x, const Tensor& per_column);

/// `indices` host indices, one per row of x (token ids, targets), for a tensor on the device.
void require_index_per_row(std::string_view op, const Tensor& x, std::size_t indices);

/// `sums` is [x.rows(), 2] in x's dtype on the device (per-row pairs of sums).
void require_row_pairs(std::string_view op, const Tensor& x, const Tensor& sums);

/// `host_values` values fill `t` exactly (upload, download).
void require_host_size(std::string_view op, std::size_t host_values, const Tensor& t);

/// Scores and probabilities of a causal softmax: [batch, s, s], alike, on the device.
void require_causal_scores(std::string_view op, const Tensor& scores, const Tensor& probs);

/// The extents of one head-major tensor [b*n, s, d] and its token-major form [b*s, n*d].
struct HeadLayout {
  std::int64_t batch = 0;     ///< b
  std::int64_t heads = 0;     ///< n
  std::int64_t sequence = 0;  ///< s
  std::int64_t head_dim = 0;  ///< d
};

/// split_heads: x [b*s, n*d] -> out [b*n, s, d]; returns b, n, s and d.
HeadLayout require_split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads,
                               const Tensor& out);

/// merge_heads: x [b*n, s, d] -> out [b*s, n*d]; returns b, n, s and d.
HeadLayout require_merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads,
                               const Tensor& out);

}  // namespace tplab::cuda
