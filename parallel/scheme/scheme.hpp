/// @file
/// Scheme: one way of splitting the block over ranks (1D, 2D, 2.5D, 3D).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "core/names.hpp"
#include "device/device.hpp"
#include "scheme/block_shape.hpp"
#include "scheme/block_training.hpp"
#include "scheme/execution_policy.hpp"
#include "scheme/parallel_module.hpp"
#include "scheme/pipeline_schedule.hpp"
#include "scheme/placement.hpp"

namespace tplab {

/// What a run computes: the whole block, or the linear pair Y = (X W1 + b1) W2 + b2 alone
/// (the exact check of a scheme's linear layers).
enum class Workload { block, linear_pair };

/// How data parallelism gathers a rank's gradient shards for its all-reduces over the DP group.
enum class GradientBuckets {
  flat,        ///< every shard copied into one buffer, reduced by one all-reduce (DDP's bucket)
  per_tensor,  ///< one all-reduce per parameter's gradient
};

/// The names of the bucketings, as --dp-buckets takes them and the JSON records them.
inline constexpr std::array<Named<GradientBuckets>, 2> kGradientBucketNames = {
    {{"flat", GradientBuckets::flat}, {"per-tensor", GradientBuckets::per_tensor}}};

/// Options some schemes take.
struct SchemeOptions {
  int depth = 0;          ///< 2.5D: number of depth layers d (0: chosen from the world size)
  bool regather = false;  ///< 3D: gather X~ and W~ again in backward instead of keeping them
  /// Start collectives early and wait for them only when their result is needed, computing
  /// meanwhile: 1D's sum of dX during the weight gradients, SUMMA's next broadcasts during
  /// the current product (2D, 2.5D), 3D's gather of the next linear's weight during the
  /// current product and its dW reduce-scatter during dX's. The same collectives, counted
  /// alike.
  bool overlap = false;
  /// D: replicas of the scheme side by side, each on its b/D slice of the batch, their gradients
  /// reduced over the DP group (mesh/data_parallel_scheme.hpp). 1: tensor parallelism alone.
  int dp = 1;
  /// How the DP reduction gathers the gradients (with dp > 1).
  GradientBuckets dp_buckets = GradientBuckets::flat;
  /// S: pipeline stages, each holding L/S of the GPT's blocks on its own ranks, activations and
  /// their gradients passed between neighbours (pipeline/). 1: no pipeline. Only a GPT is split
  /// into stages; a block alone never is.
  int pp = 1;
  /// M: micro-batches each replica's b/D sequences are cut into, run one after another (or
  /// through the pipeline's stages as `schedule` orders them), their gradients accumulated in
  /// micro-batch order. 1: the whole slice at once.
  int micro_batches = 1;
  /// The order of the micro-batches' forward and backward passes on each stage (with pp > 1).
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  /// Dropout and activation recomputation in every block.
  BlockTraining training{};
};

/// The execution policy `options` asks for: its overlap and regathering.
ExecutionPolicy execution_policy_of(const SchemeOptions& options);

/// A tensor-parallel scheme. Everything here except make_module is pure: it depends only on
/// its arguments, so every rank reaches the same answer without communicating.
class Scheme {
 public:
  virtual ~Scheme() = default;
  /// "1d", "1d-sp", "2d", ...
  virtual std::string name() const = 0;
  /// Empty when the scheme can run `shape` on `world_size` ranks; otherwise the rule that is
  /// broken, as a phrase such as "1D with 4 heads needs a rank count that divides 4".
  virtual std::string why_not(int world_size, const BlockShape& shape) const = 0;
  /// Empty when the scheme can run `shape` on `world_size` ranks; otherwise the whole
  /// sentence: the broken rule, the world sizes that would work and the one given.
  std::string refusal(int world_size, const BlockShape& shape) const;
  /// Throws UsageError with refusal() (or the shape's problem, or a world below one rank).
  void validate(int world_size, const BlockShape& shape) const;
  /// The world sizes `./tplab verify` runs this scheme at when none are given.
  virtual std::vector<int> default_world_sizes() const = 0;
  /// World sizes this scheme can use for `shape`, up to `limit` (for messages and sweeps).
  std::vector<int> usable_world_sizes(const BlockShape& shape, int limit) const;
  /// Empty when the scheme can take `shape` at some world size; otherwise why it never can (a
  /// batch that does not split over data-parallel replicas). validate() asks it first.
  virtual std::string shape_refusal(const BlockShape& /*shape*/) const { return {}; }
  /// The grid used at `world_size`, for reports: "t=4", "q=2", "q=2 d=2".
  virtual std::string describe_grid(int world_size, const BlockShape& shape) const = 0;
  /// The number of depth layers at `world_size`: layers of ranks that hold the same parameter
  /// shards for other tokens (2.5D's d; 0 when no depth fits). 1 for a scheme without depth.
  virtual int depth_for(int /*world_size*/, const BlockShape& /*shape*/) const { return 1; }
  /// Where each tensor of the workload (inputs, parameters, outputs, gradients) lives.
  virtual std::vector<TensorPlacement> placements(int world_size, const BlockShape& shape,
                                                  Workload workload) const = 0;
  /// Builds the process grid from `world` and the module from this rank's parameter shards
  /// (as placements() cuts them). Collective over `world`.
  virtual std::unique_ptr<ParallelModule> make_module(Comm& world, Device& device,
                                                      const BlockShape& shape, Workload workload,
                                                      TensorMap parameters) const = 0;
};

}  // namespace tplab

namespace tplab {

/// Appends, for every parameter among `placements`, its gradient's placement (the same blocks
/// under gradient_name()). Activations "x", "dy", "y", "dx" are not parameters.
std::vector<TensorPlacement> with_gradients(std::vector<TensorPlacement> placements);

/// "1, 2 or 4" (or "none" when empty), for messages that name what would work.
std::string alternatives(const std::vector<int>& sizes);

/// True for the parameters of a block ("wq", "ln1_gamma", ...).
bool is_parameter(std::string_view tensor);

}  // namespace tplab
