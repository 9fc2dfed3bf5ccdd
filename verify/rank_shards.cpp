#include "rank_shards.hpp"

#include "scheme/scheme.hpp"

namespace tplab::verify {

Tensor upload_shard(Device& device, const HostArray& global, const TensorPlacement& placement,
                    int rank, DType dtype) {
  Tensor t = device.empty(placement.local_extents(rank), dtype);
  const std::vector<double> values =
      global.block(placement.blocks.at(static_cast<std::size_t>(rank)));
  device.upload(values, t);
  return t;
}

RankShards shard_for_rank(Device& device, const HostArrays& inputs,
                          const std::vector<TensorPlacement>& placements, int rank, DType dtype) {
  RankShards shards;
  for (const auto& [name, array] : inputs) {
    if (!is_parameter(name)) continue;
    shards.parameters.emplace(
        name, upload_shard(device, array, find_placement(placements, name), rank, dtype));
  }
  shards.x = upload_shard(device, inputs.at("x"), find_placement(placements, "x"), rank, dtype);
  shards.dy = upload_shard(device, inputs.at("dy"), find_placement(placements, "dy"), rank, dtype);
  return shards;
}

}  // namespace tplab::verify
