// Lesson 17, the answer: one stage's 1F1B loop, a warm-up of forwards, one forward and one
// backward in turn, then the last backwards, each pass with its receive before it and its send
// after it.
#include <algorithm>
#include <utility>

#include "lesson.hpp"

namespace tplab::lessons::pipeline_stage {
namespace {

/// F(micro): the input from stage s - 1 (the first stage embeds its own), the stage's forward,
/// the output on to stage s + 1 (the last stage keeps its loss).
void forward_step(Stage& stage, int micro) {
  Tensor x = stage.first() ? Tensor() : stage.receive_activation();  // [m, h]
  const Tensor y = stage.forward(micro, std::move(x));               // [m, h]
  if (!stage.last()) stage.send_activation(y);
}

/// B(micro): the gradient of F(micro)'s output from stage s + 1 (the last stage starts from its
/// loss), the stage's backward, its input's gradient back to stage s - 1.
void backward_step(Stage& stage, int micro) {
  Tensor dy = stage.last() ? Tensor() : stage.receive_gradient();  // [m, h]
  const Tensor dx = stage.backward(micro, std::move(dy));          // [m, h]
  if (!stage.first()) stage.send_gradient(dx);
}

}  // namespace

// The library's schedule as data, GPipe's and 1F1B's: parallel/pipeline/stage_actions.cpp,
// stage_actions; its executor, with the same receives and started sends:
// parallel/pipeline/stage_step.cpp, run_stage_step.
void one_f_one_b(Stage& stage, int micro_batches) {
  const int s = stage.index(), stages = stage.stages();
  // Stage s must run S - s - 1 forwards before its first backward: the gradient of micro-batch
  // 0 comes back only after F(0) has gone through the S - s - 1 stages after it and B(0)
  // through them back. Fewer micro-batches than that: all of them.
  const int warmup = std::min(stages - s - 1, micro_batches);
  int forwards = 0, backwards = 0;
  for (; forwards < warmup; ++forwards) forward_step(stage, forwards);
  // The steady state: one in, one out. Stage s keeps at most warmup + 1 = min(S - s, M)
  // micro-batches' activations, where GPipe keeps all M.
  while (forwards < micro_batches) {
    forward_step(stage, forwards++);
    backward_step(stage, backwards++);
  }
  // The cool-down: the backwards of the micro-batches still in flight, in micro-batch order, as
  // the serial run sums their gradients.
  while (backwards < micro_batches) backward_step(stage, backwards++);
}

}  // namespace tplab::lessons::pipeline_stage
