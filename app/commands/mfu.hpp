/// @file
/// Model FLOPs utilisation on the CPU, as bench and train report it: the model's FLOPs per
/// second over min(np, cores) times one core's peak, which bench peak's FMA kernel measures.
#pragma once

#include <nlohmann/json.hpp>

#include "core/dtype.hpp"

namespace tplab::app {

/// One core's peak in `dtype` on the fastest instruction path, measured now (call it before
/// the first job, while the machine is quiet): {"dtype", "path", "flops_per_s_per_core",
/// "cores", "source"}.
nlohmann::json measured_peak(DType dtype);

/// `flops_per_second` of a run on `np` ranks over the peak of the cores it had:
/// min(np, peak's cores) x peak's flops_per_s_per_core (more ranks than cores share them).
double model_flops_utilisation(double flops_per_second, int np, const nlohmann::json& peak);

}  // namespace tplab::app
