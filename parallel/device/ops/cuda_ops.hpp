/// @file
/// The CUDA object of each family of Device operations, one factory per family; each is defined
/// with its kernels in its family's device/ops/FAMILY.cu. CudaDevice puts them together. Every
/// object enqueues its work on the stream of `state` and checks each launch.
#pragma once

#include <memory>

#include "device/cuda/cuda_device.hpp"
#include "device/device.hpp"

namespace tplab::cuda {

/// The state every family shares with its device.
using SharedState = std::shared_ptr<const CudaDevice::State>;

/// Matrix products by cuBLAS.
std::unique_ptr<GemmOps> make_gemm_ops(SharedState state);
/// Element-wise and bias kernels.
std::unique_ptr<ElementwiseOps> make_elementwise_ops(SharedState state);
/// GELU kernels.
std::unique_ptr<GeluOps> make_gelu_ops(SharedState state);
/// Causal softmax kernels.
std::unique_ptr<SoftmaxOps> make_softmax_ops(SharedState state);
/// The split and merge of heads.
std::unique_ptr<HeadsOps> make_heads_ops(SharedState state);
/// The parts of LayerNorm.
std::unique_ptr<LayerNormOps> make_layernorm_ops(SharedState state);
/// Embedding rows and cross-entropy of a vocabulary shard (GPT only).
std::unique_ptr<VocabularyOps> make_vocabulary_ops(SharedState state);

/// Gradient norms and AdamW (training only).
std::unique_ptr<OptimizerOps> make_optimizer_ops(SharedState state);

}  // namespace tplab::cuda
