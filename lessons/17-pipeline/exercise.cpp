// Lesson 17 exercise: one pipeline stage's 1F1B loop. Fill in the TODO block, then run
// ./tplab lesson check 17. README.md explains the idea; ./tplab lesson hint 17 helps.
#include "lessons/common/exercise.hpp"

#include <algorithm>
#include <utility>

#include "lesson.hpp"

namespace tplab::lessons::pipeline_stage {

void one_f_one_b(Stage& stage, int micro_batches) {
  // TODO: run micro-batches 0..M-1 through this stage in the order of 1F1B (README, "1F1B"):
  //         1. a warm-up of min(S - s - 1, M) forwards: F(0), F(1), ...
  //         2. while forwards remain: the next forward, then the oldest backward
  //         3. the backwards still to run, in micro-batch order
  //       A forward F(i): its input from the stage before (stage.receive_activation(); the
  //       first stage passes Tensor()), stage.forward(i, std::move(x)), and its output on
  //       (stage.send_activation(y); not on the last stage).
  //       A backward B(i): the gradient from the stage after (stage.receive_gradient(); the
  //       last stage passes Tensor()), stage.backward(i, std::move(dy)), and the input's
  //       gradient back (stage.send_gradient(dx); not on the first stage).
  //       s = stage.index(), S = stage.stages(), M = micro_batches.
  (void)stage;
  (void)micro_batches;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::pipeline_stage
