// Lesson 11, the library's answer: the collectives of model::cost_1d, timed as
// model::project times them (model/alpha_beta.cpp), without the bookkeeping.
#include "alpha_beta.hpp"
#include "cost_1d.hpp"
#include "flops.hpp"
#include "lesson.hpp"

namespace tplab::lessons::cost_model {

double bus_elements_1d(const BlockShape& shape, int t) {
  return model::cost_1d(shape, t, Workload::block).comm.total().total_bus_elements();
}

StepTime step_time_1d(const BlockShape& shape, int t, const model::HardwareProfile& profile) {
  StepTime step;
  step.compute_s = model::block_step_flops(shape) / t / profile.matmul_flops_per_s;
  const bool inter_node = t > profile.gpus_per_node;
  const model::Link& link = inter_node ? *profile.inter_node : profile.intra_node;
  const model::RankCost cost = model::cost_1d(shape, t, Workload::block);
  for (const model::PredictedCollective& row : cost.comm.total().rows()) {
    step.comm_s +=
        model::collective_time(row, link.rate_of(row.collective), profile.bytes_per_element)
            .total_s();
  }
  return step;
}

int first_comm_bound_t(const BlockShape& shape, const model::HardwareProfile& profile, int max_t) {
  for (int t = 1; t <= max_t; t *= 2) {
    const StepTime step = step_time_1d(shape, t, profile);
    if (step.comm_s > step.compute_s) return t;
  }
  return 0;
}

}  // namespace tplab::lessons::cost_model
