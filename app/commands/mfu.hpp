/// @file
/// Model FLOPs utilisation, as bench and train report it: on the CPU the model's FLOPs per
/// second over min(np, cores) times one core's peak, which bench peak's FMA kernel measures; on
/// a GPU over the dense peak its hardware profile gives.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/dtype.hpp"

namespace tplab::app {

/// One core's peak in `dtype` on the fastest instruction path, measured now (call it before
/// the first job, while the machine is quiet): {"dtype", "path", "flops_per_s_per_core",
/// "cores", "source"}. For bf16, f32's peak ("dtype": "f32"), which the CPU computes bf16 in.
nlohmann::json measured_peak(DType dtype);

/// `flops_per_second` of a run on `np` ranks over the peak of the cores it had:
/// min(np, peak's cores) x peak's flops_per_s_per_core (more ranks than cores share them).
double model_flops_utilisation(double flops_per_second, int np, const nlohmann::json& peak);

/// The dense `dtype` peak of the GPU CUDA calls `gpu`, from the hardware profile that names it
/// (model/hardware.json, gpu_names): {"dtype", "flops_per_s", "sparse_flops_per_s",
/// "sparsity": "dense", "profile", "source"}; null when no profile names it or gives that
/// dtype's peak.
nlohmann::json gpu_dense_peak(const std::string& gpu, DType dtype);

}  // namespace tplab::app
