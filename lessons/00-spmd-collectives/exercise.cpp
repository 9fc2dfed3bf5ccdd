// Lesson 00 exercise: one program on every rank (SPMD), one collective, and its cost. Fill in
// the TODO blocks, then run ./tplab lesson check 0. README.md explains; ./tplab lesson hint 0.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::spmd {

Tensor global_sum(Device& device, Comm& world, const Tensor& x_local) {
  // TODO: copy x_local into a new tensor (device.empty + device.copy) and sum it over the
  //       world with one collective. Do not change x_local: the checker still needs it.
  (void)device;
  (void)world;
  (void)x_local;
  TPLAB_TODO();
}

double ring_all_reduce_elements(int p, std::int64_t elements) {
  // TODO: a ring all-reduce is a reduce-scatter then an all-gather, each p - 1 steps of N/p
  //       (N = elements).
  (void)p;
  (void)elements;
  TPLAB_TODO();
}

double all_reduce_bus_bandwidth(double algbw, int p) {
  // TODO: algbw is bytes / time; busbw scales it by what each link really carries.
  (void)algbw;
  (void)p;
  TPLAB_TODO();
}

double ring_all_reduce_seconds(int p, double bytes, double alpha, double bandwidth) {
  // TODO: count the steps (each pays alpha) and the bytes one rank sends (each pays 1/bandwidth).
  (void)p;
  (void)bytes;
  (void)alpha;
  (void)bandwidth;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::spmd
