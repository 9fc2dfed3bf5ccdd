/// @file
/// PlanRequest: what `tplab model --plan` is asked: a model, its batch, a cluster and the
/// assumptions that turn FLOPs and bytes into seconds.
#pragma once

#include <string>
#include <vector>

#include "hardware.hpp"
#include "plan/gpt_model.hpp"
#include "plan/parallel_layout.hpp"
#include "scheme/scheme.hpp"

namespace tplab::model::plan {

/// One question: which DP x TP x PP trains `model` fastest on `devices` devices of `hardware`?
struct PlanRequest {
  GptModel model;            ///< the GPT to train
  TrainingBatch batch;       ///< its global and micro-batch
  HardwareProfile hardware;  ///< rates, bytes per element, links
  int devices = 128;         ///< the cluster's devices, one rank each
  int ranks_per_node = 8;    ///< devices per node; consecutive ranks fill a node
  /// Memory of one device in bytes (the profile's unless overridden).
  double memory_bytes = 0;
  /// The share of the profile's peak FLOP rate the blocks' matrix products reach: compute time
  /// is FLOPs / (peak x efficiency).
  double efficiency = 0.5;
  std::vector<std::string> schemes;       ///< TP schemes to consider at TP > 1, registry names
  SchemeOptions scheme_options;           ///< what the schemes are built with (2.5D's depth)
  RankOrder order = RankOrder::tp_pp_dp;  ///< how world ranks map to (dp, pp, tp)
  /// The pipeline's schedule: what a stage keeps in flight (1F1B min(PP - s, m), GPipe m); the
  /// step's time is the same for both.
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  /// Only the layouts of this many stages (--pp), of this many replicas (--dp); 0: any.
  ///@{
  int only_pp = 0, only_dp = 0;
  ///@}
};

/// Throws UsageError, naming the option, for a request no layout could be judged on: a size or
/// count not positive, an efficiency outside (0, 1], a cluster of several nodes whose device
/// count is not a multiple of the ranks per node, or several nodes on a profile without an
/// inter-node link.
void check_request(const PlanRequest& request);

}  // namespace tplab::model::plan
