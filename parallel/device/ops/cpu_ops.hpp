/// @file
/// The CPU object of each family of Device operations, one factory per family; each is defined
/// in its family's device/ops/FAMILY_cpu.cpp; make_families (cpu_device.cpp) puts them
/// together for CpuDevice.
#pragma once

#include <memory>

#include "device/device.hpp"

namespace tplab::cpu {

/// Matrix products: oneDNN (f32) or OpenBLAS (f64) where found, Eigen otherwise.
std::unique_ptr<GemmOps> make_gemm_ops();
/// Element-wise and bias operations with Eigen.
std::unique_ptr<ElementwiseOps> make_elementwise_ops();
/// GELU with Eigen.
std::unique_ptr<GeluOps> make_gelu_ops();
/// The causal softmax, row by row.
std::unique_ptr<SoftmaxOps> make_softmax_ops();
/// Split and merge heads, block by block.
std::unique_ptr<HeadsOps> make_heads_ops();
/// The parts of LayerNorm with Eigen.
std::unique_ptr<LayerNormOps> make_layernorm_ops();
/// Embedding rows and cross-entropy of a vocabulary shard (GPT only).
std::unique_ptr<VocabularyOps> make_vocabulary_ops();

/// Gradient norms and AdamW, element by element (training only).
std::unique_ptr<OptimizerOps> make_optimizer_ops();

/// The CPU object of every family: what CpuDevice is made with.
DeviceFamilies make_families();

}  // namespace tplab::cpu
