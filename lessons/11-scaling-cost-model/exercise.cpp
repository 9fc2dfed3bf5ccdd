// Lesson 11 exercise: the cost of 1D tensor parallelism, in bytes and in seconds, and where it
// becomes communication-bound. Fill in the TODO blocks, then run ./tplab lesson check 11.
// README.md explains; ./tplab lesson hint 11 helps.
#include "lessons/common/exercise.hpp"

#include "flops.hpp"
#include "lesson.hpp"

namespace tplab::lessons::cost_model {

double bus_elements_1d(const BlockShape& shape, int t) {
  // TODO: how many all-reduces of [m, h] does one block make, forward and backward (lesson 03:
  //       operators f and g)? A ring all-reduce of N elements sends 2(t-1)/t N from each rank.
  (void)shape;
  (void)t;
  TPLAB_TODO();
}

StepTime step_time_1d(const BlockShape& shape, int t, const model::HardwareProfile& profile) {
  // TODO: compute_s: model::block_step_flops(shape) / t at profile.matmul_flops_per_s.
  //       comm_s: each all-reduce pays 2(t-1) steps of alpha (latency_s) and its bus bytes at
  //       bandwidth_bytes_per_s, with profile.bytes_per_element bytes per element. Take the
  //       rates of Collective::all_reduce (Link::rate_of) from profile.intra_node, or from
  //       *profile.inter_node when the t ranks need more than profile.gpus_per_node devices.
  (void)shape;
  (void)t;
  (void)profile;
  TPLAB_TODO();
}

int first_comm_bound_t(const BlockShape& shape, const model::HardwareProfile& profile, int max_t) {
  // TODO: try t = 1, 2, 4, ... up to max_t with step_time_1d; return the first t whose
  //       communication takes longer than its compute, or 0.
  (void)shape;
  (void)profile;
  (void)max_t;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::cost_model
