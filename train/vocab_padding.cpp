/// @file
/// Vocabulary padding: the grown parameters, and the padding checked at the end.
#include "vocab_padding.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "device/cpu_device.hpp"

namespace tplab::train {

verify::HostArrays padded_parameters(const verify::HostArrays& initial, std::int64_t vocab,
                                     std::int64_t padded) {
  verify::HostArrays out = initial;
  if (padded == vocab) return out;
  const auto grow_columns = [&](verify::HostArray& a) {
    // [rows, V] -> [rows, padded], row by row; a vector [V] as one row
    const std::int64_t rows = a.extents.size() == 2 ? a.extents[0] : 1;
    std::vector<double> values(static_cast<std::size_t>(rows * padded), 0.0);
    for (std::int64_t r = 0; r < rows; ++r) {
      std::copy_n(a.values.begin() + r * vocab, vocab, values.begin() + r * padded);
    }
    a.values = std::move(values);
    a.extents.back() = padded;
  };
  verify::HostArray& embedding = out.at("embedding");  // [V, h]: rows of zeros at the end
  embedding.values.resize(static_cast<std::size_t>(padded * embedding.extents[1]), 0.0);
  embedding.extents[0] = padded;
  grow_columns(out.at("w_head"));
  grow_columns(out.at("b_head"));
  return out;
}

std::string padding_problem(Comm& world, Device& device, const TensorMap& tensors,
                            const std::vector<TensorPlacement>& placements, std::int64_t vocab,
                            std::string_view prefix) {
  CpuDevice host;
  Tensor found = host.zeros({1}, DType::f64);  // 1 + the first rank with a non-zero padding
  std::string mine;
  for (const char* name : {"embedding", "w_head", "b_head"}) {
    const std::string held = fmt::format("{}{}", prefix, name);
    if (!tensors.contains(held)) continue;  // held by another pipeline stage
    const BlockRange& b =
        find_placement(placements, name).blocks[static_cast<std::size_t>(world.rank())];
    const Tensor& shard = tensors.at(held);
    std::vector<double> values(static_cast<std::size_t>(shard.numel()));
    device.download(shard, values);
    const bool ids_are_rows = std::string_view(name) == "embedding";
    for (std::int64_t r = 0; r < b.rows && mine.empty(); ++r) {
      for (std::int64_t c = 0; c < b.cols && mine.empty(); ++c) {
        const std::int64_t id = ids_are_rows ? b.row0 + r : b.col0 + c;
        const double v = values[static_cast<std::size_t>(r * b.cols + c)];
        if (id >= vocab && v != 0.0) {
          mine = fmt::format("{} of padded id {} is {} on rank {}", held, id, v, world.rank());
        }
      }
    }
  }
  if (!mine.empty()) found.data_as<double>()[0] = 1.0;
  world.all_reduce(found);
  if (found.data_as<double>()[0] == 0.0) return {};
  return mine.empty() ? std::string("a padded id took part in training on another rank") : mine;
}

}  // namespace tplab::train
