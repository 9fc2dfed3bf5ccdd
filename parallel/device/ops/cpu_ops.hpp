/// @file
/// The CPU object of each family of Device operations, one factory per family; each is defined
/// in its family's device/ops/FAMILY_cpu.cpp; make_families (cpu_device.cpp) puts them
/// together for CpuDevice.
#pragma once

#include <memory>
#include <string>

#include "device/device.hpp"

namespace tplab::cpu {

/// How the CPU multiplies bf16 matrices: oneDNN's bf16 kernels (AVX512-BF16 or AMX), or the
/// portable emulation, which widens the operands to f32 and runs the f32 GEMM. Both sum the
/// products in f32 and round C once to bf16, as cuBLAS does with CUBLAS_COMPUTE_32F.
enum class Bf16GemmPath { onednn, emulated };

/// Whether oneDNN's bf16 kernels can run here: the build has oneDNN and oneDNN finds bf16
/// matmul instructions on this CPU (DNNL_MAX_CPU_ISA may hide them).
bool onednn_bf16_available();

/// The path the environment asks for: TPLAB_BF16_GEMM=onednn or emulated; unset or auto,
/// oneDNN where this CPU has bf16 matmul instructions and the build has oneDNN, else the
/// emulation. Throws UsageError for another value, or for onednn where it cannot run.
Bf16GemmPath chosen_bf16_gemm_path();
/// "oneDNN 2.6.3 on avx512_core_amx" or "emulation (the f32 GEMM on widened operands)", for
/// reports.
std::string describe(Bf16GemmPath path);

/// Matrix products: oneDNN (f32) or OpenBLAS (f64) where found, Eigen otherwise; bf16 on the
/// path chosen_bf16_gemm_path() gives at the first bf16 product.
std::unique_ptr<GemmOps> make_gemm_ops();
/// The same with bf16 products on `bf16` (tests and benchmarks compare the paths).
std::unique_ptr<GemmOps> make_gemm_ops(Bf16GemmPath bf16);
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

/// `f32` with every family but gemm taking bf16 too: each operation widens its bf16 operands
/// to f32, runs `f32`'s kernel, and rounds its outputs back once (bf16_widening.hpp).
DeviceFamilies with_bf16(DeviceFamilies f32);

/// The CPU object of every family: what CpuDevice is made with.
DeviceFamilies make_families();

}  // namespace tplab::cpu
