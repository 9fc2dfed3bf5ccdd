// CudaDevice's preconditions, on the CPU: tensors that say they live on the GPU (their memory is
// host memory here, never read) are accepted or refused before any launch.
#include "device/cuda/cuda_checks.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace tplab::cuda {
namespace {

Tensor on(DeviceKind device, const Extents& e, DType dtype = DType::f32) {
  const std::size_t bytes =
      std::max<std::size_t>(1, static_cast<std::size_t>(element_count(e)) * dtype_size(dtype));
  return Tensor(
      e, dtype, device,
      std::shared_ptr<std::byte>(new std::byte[bytes](), std::default_delete<std::byte[]>()));
}
Tensor gpu(const Extents& e, DType dtype = DType::f32) {
  return on(DeviceKind::cuda, e, dtype);
}

template <typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

TEST(CudaChecks, HostTensorsAreRefusedByName) {
  const std::string m = message_of([] {
    require_same("add_inplace", gpu({2, 3}), on(DeviceKind::cpu, {2, 3}));
  });
  EXPECT_NE(m.find("CudaDevice::add_inplace"), std::string::npos) << m;
  EXPECT_NE(m.find("not on the CUDA device"), std::string::npos) << m;
  EXPECT_NO_THROW(require_same("copy", gpu({2, 3}), gpu({2, 3})));
}

TEST(CudaChecks, ShapesAndDtypesMustAgree) {
  EXPECT_THROW(require_same("copy", gpu({2, 3}), gpu({3, 2})), InternalError);
  EXPECT_THROW(require_same("copy", gpu({2, 3}), gpu({2, 3}, DType::bf16)), InternalError);
  EXPECT_THROW(require_one_dtype("matmul", gpu({2, 2}), gpu({2, 2}, DType::bf16), gpu({2, 2})),
               InternalError);
  EXPECT_NO_THROW(require_per_row("row_sum", gpu({4, 3}), gpu({4})));
  EXPECT_THROW(require_per_row("row_sum", gpu({4, 3}), gpu({3})), InternalError);
  EXPECT_NO_THROW(require_per_column("add_bias", gpu({4, 3}), gpu({3})));
  EXPECT_THROW(require_per_column("add_bias", gpu({4, 3}), gpu({4})), InternalError);
  EXPECT_THROW(require_per_column("add_bias", gpu({4, 3}), gpu({3}, DType::f64)), InternalError);
  EXPECT_NO_THROW(require_host_size("upload", 12, gpu({4, 3})));
  EXPECT_THROW(require_host_size("upload", 11, gpu({4, 3})), InternalError);
}

TEST(CudaChecks, VocabularyOpsNeedOneIndexAndOnePairPerRow) {
  EXPECT_NO_THROW(require_index_per_row("gather_rows", gpu({5, 3}), 5));
  EXPECT_THROW(require_index_per_row("gather_rows", gpu({5, 3}), 4), InternalError);
  EXPECT_THROW(require_index_per_row("gather_rows", on(DeviceKind::cpu, {5, 3}), 5), InternalError);
  EXPECT_NO_THROW(require_row_pairs("cross_entropy_sums", gpu({5, 8}), gpu({5, 2})));
  EXPECT_THROW(require_row_pairs("cross_entropy_sums", gpu({5, 8}), gpu({2, 5})), InternalError);
  EXPECT_THROW(require_row_pairs("cross_entropy_sums", gpu({5, 8}), gpu({5, 2}, DType::f64)),
               InternalError);
}

TEST(CudaChecks, CausalScoresAreSquarePerBatch) {
  EXPECT_NO_THROW(require_causal_scores("softmax", gpu({6, 5, 5}), gpu({6, 5, 5})));
  EXPECT_THROW(require_causal_scores("softmax", gpu({6, 5, 4}), gpu({6, 5, 4})), InternalError);
  EXPECT_THROW(require_causal_scores("softmax", gpu({30, 5}), gpu({30, 5})), InternalError);
}

TEST(CudaChecks, HeadsLayoutFollowsTheExtents) {
  // b = 2, s = 3, n = 4, d = 5
  const HeadLayout split = require_split_heads(gpu({6, 20}), 2, 4, gpu({8, 3, 5}));
  EXPECT_EQ(split.batch, 2);
  EXPECT_EQ(split.heads, 4);
  EXPECT_EQ(split.sequence, 3);
  EXPECT_EQ(split.head_dim, 5);
  const HeadLayout merge = require_merge_heads(gpu({8, 3, 5}), 2, 4, gpu({6, 20}));
  EXPECT_EQ(merge.sequence, 3);
  EXPECT_EQ(merge.head_dim, 5);
  EXPECT_THROW(require_split_heads(gpu({6, 20}), 4, 4, gpu({16, 1, 5})), InternalError);
  EXPECT_THROW(require_split_heads(gpu({6, 20}), 2, 3, gpu({6, 3, 6})), InternalError);
  EXPECT_THROW(require_split_heads(gpu({6, 20}), 0, 4, gpu({0, 3, 5})), InternalError);
  EXPECT_THROW(require_merge_heads(gpu({8, 3, 5}), 2, 4, gpu({6, 21})), InternalError);
  EXPECT_THROW(require_merge_heads(gpu({8, 3, 5}), 2, 4, gpu({6, 20}, DType::bf16)), InternalError);
}

}  // namespace
}  // namespace tplab::cuda
