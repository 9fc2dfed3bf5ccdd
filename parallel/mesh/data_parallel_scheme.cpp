#include "mesh/data_parallel_scheme.hpp"

#include <fmt/format.h>

#include "mesh/data_parallel_module.hpp"

namespace tplab {

DataParallelScheme::DataParallelScheme(SchemeFactory make_replica, const SchemeOptions& options)
    : make_replica_(std::move(make_replica)),
      options_(options),
      replica_(make_replica_(replica_options(options))),
      replicas_(options.dp) {}

std::string DataParallelScheme::shape_refusal(const BlockShape& shape) const {
  if (std::string why = batch_split_problem(shape, replicas_); !why.empty()) return why;
  return replica_->shape_refusal(replica_shape(shape, replicas_));
}

std::string DataParallelScheme::why_not(int world_size, const BlockShape& shape) const {
  if (const std::string why = shape_refusal(shape); !why.empty()) return why;
  if (world_size % replicas_ != 0) {
    return fmt::format(
        "--dp {} runs {} replicas of {} side by side, each on an equal share of the ranks, so "
        "it needs",
        replicas_, replicas_, replica_->name());
  }
  const BlockShape local = replica_shape(shape, replicas_);
  const std::string why = replica_->why_not(world_size / replicas_, local);
  if (why.empty()) return {};
  return fmt::format(
      "--dp {} gives each replica p/{} ranks and b = {} sequences, where {} {} ranks; so --dp {} "
      "needs",
      replicas_, replicas_, local.b, why,
      alternatives(replica_->usable_world_sizes(local, 64 / replicas_)), replicas_);
}

std::vector<int> DataParallelScheme::default_world_sizes() const {
  std::vector<int> sizes;
  for (int p : replica_->default_world_sizes()) sizes.push_back(p * replicas_);
  return sizes;
}

std::string DataParallelScheme::describe_grid(int world_size, const BlockShape& shape) const {
  return fmt::format(
      "dp={} {}", replicas_,
      replica_->describe_grid(world_size / replicas_, replica_shape(shape, replicas_)));
}

int DataParallelScheme::depth_for(int world_size, const BlockShape& shape) const {
  return replica_->depth_for(world_size / replicas_, replica_shape(shape, replicas_));
}

std::vector<TensorPlacement> DataParallelScheme::placements(int world_size, const BlockShape& shape,
                                                            Workload workload) const {
  const BlockShape local = replica_shape(shape, replicas_);
  return mesh_placements(replica_->placements(world_size / replicas_, local, workload),
                         mesh_of(options_, world_size), local.tokens());
}

std::unique_ptr<ParallelModule> DataParallelScheme::make_module(Comm& world, Device& device,
                                                                const BlockShape& shape,
                                                                Workload workload,
                                                                TensorMap parameters) const {
  const MeshLayout mesh = mesh_of(options_, world.size());
  MeshComms comms = split_mesh(world, mesh);
  const SchemeOptions options = replica_options_of_rank(options_, mesh, world.rank(), shape);
  auto replica = make_replica_(options)->make_module(
      *comms.replica, device, replica_shape(shape, replicas_), workload, std::move(parameters));
  return std::make_unique<DataParallelModule>(std::move(comms), std::move(replica), device,
                                              options_.dp_buckets);
}

}  // namespace tplab
