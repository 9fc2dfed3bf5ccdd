#include "memory_breakdown.hpp"

#include <fmt/format.h>

#include <array>

#include "device/cpu_device.hpp"

namespace tplab::verify {

std::int64_t tensor_bytes(const TensorMap& tensors) {
  std::int64_t bytes = 0;
  for (const auto& [name, tensor] : tensors) bytes += static_cast<std::int64_t>(tensor.bytes());
  return bytes;
}

MemoryBreakdown largest_over_ranks(Comm& world, const MemoryBreakdown& mine) {
  std::array<MemoryKind, 4> kinds = {mine.parameters, mine.gradients, mine.optimizer,
                                     mine.activations};
  CpuDevice host;
  Tensor values = host.empty({2 * 4 + 2}, DType::f64);
  double* v = values.data_as<double>();
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    v[2 * k] = static_cast<double>(kinds[k].measured);
    v[2 * k + 1] = kinds[k].model ? static_cast<double>(*kinds[k].model) : -1.0;
  }
  v[8] = static_cast<double>(mine.peak_allocated);
  v[9] = static_cast<double>(mine.peak_resident);
  world.all_reduce(values, ReduceOp::max);
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    kinds[k].measured = static_cast<std::int64_t>(v[2 * k]);
    if (v[2 * k + 1] >= 0) kinds[k].model = static_cast<std::int64_t>(v[2 * k + 1]);
  }
  return {kinds[0],
          kinds[1],
          kinds[2],
          kinds[3],
          static_cast<std::int64_t>(v[8]),
          static_cast<std::int64_t>(v[9])};
}

std::string first_difference_from_model(Comm& world, const MemoryBreakdown& mine) {
  constexpr std::array<const char*, 4> kNames = {"parameters", "gradients", "optimizer state",
                                                 "activations"};
  const std::array<MemoryKind, 4> kinds = {mine.parameters, mine.gradients, mine.optimizer,
                                           mine.activations};
  // (measured, model) of each kind, gathered from every rank
  CpuDevice host;
  const auto slots = static_cast<std::int64_t>(2 * kinds.size());
  Tensor sent = host.empty({slots}, DType::f64);
  double* v = sent.data_as<double>();
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    v[2 * k] = static_cast<double>(kinds[k].measured);
    v[2 * k + 1] = kinds[k].model ? static_cast<double>(*kinds[k].model) : v[2 * k];
  }
  Tensor all = host.empty({world.size() * slots}, DType::f64);
  world.all_gather(sent, all);
  for (int r = 0; r < world.size(); ++r) {
    const double* w = all.data_as<double>() + r * slots;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      if (w[2 * k] != w[2 * k + 1]) {
        return fmt::format("rank {}: {} {:.0f} bytes measured, {:.0f} by the cost model", r,
                           kNames[k], w[2 * k], w[2 * k + 1]);
      }
    }
  }
  return {};
}

nlohmann::json to_json(const MemoryBreakdown& memory) {
  const auto kind = [](const MemoryKind& k) {
    return nlohmann::json{{"measured", k.measured},
                          {"model", k.model ? nlohmann::json(*k.model) : nlohmann::json()}};
  };
  return {{"parameters", kind(memory.parameters)},   {"gradients", kind(memory.gradients)},
          {"optimizer", kind(memory.optimizer)},     {"activations", kind(memory.activations)},
          {"peak_allocated", memory.peak_allocated}, {"peak_resident", memory.peak_resident}};
}

}  // namespace tplab::verify
