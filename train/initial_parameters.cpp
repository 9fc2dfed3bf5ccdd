/// @file
/// Seeded initial parameters of the GPT.
#include "initial_parameters.hpp"

#include <cmath>
#include <random>

namespace tplab::train {

verify::HostArrays initial_parameters(const gpt::GptShape& shape, std::uint64_t seed,
                                      double logit_offset) {
  std::mt19937_64 engine(seed);
  verify::HostArrays out;
  const auto add = [&](const std::string& name, const Extents& extents, double spread,
                       double value) {
    verify::HostArray a{extents,
                        std::vector<double>(static_cast<std::size_t>(element_count(extents)))};
    for (double& v : a.values) {
      // uniform in [-1, 1) from the engine's raw bits, the same on every platform
      v = spread == 0 ? value : spread * (static_cast<double>(engine() >> 11) * 0x1.0p-52 - 1.0);
    }
    out.emplace(name, std::move(a));
  };
  const double h = static_cast<double>(shape.block.h);
  add("embedding", gpt::gpt_extents("embedding", shape), 1.0, 0);
  for (std::int64_t l = 0; l < shape.layers; ++l) {
    for (std::string_view p : kBlockParameters) {
      const Extents extents = global_extents(p, shape.block);
      const std::string name = gpt::layer_parameter(p, l);
      if (p.starts_with("w")) {
        add(name, extents, 1.0 / std::sqrt(static_cast<double>(extents[0])), 0);
      } else {
        add(name, extents, 0, p.ends_with("gamma") ? 1.0 : 0.0);
      }
    }
  }
  add("lnf_gamma", gpt::gpt_extents("lnf_gamma", shape), 0, 1.0);
  add("lnf_beta", gpt::gpt_extents("lnf_beta", shape), 0, 0.0);
  add("w_head", gpt::gpt_extents("w_head", shape), 1.0 / std::sqrt(h), 0);
  add("b_head", gpt::gpt_extents("b_head", shape), 0, logit_offset);
  return out;
}

}  // namespace tplab::train
