/// @file
/// Lesson 17: the pipeline. One stage of a GPT cut into S stages, as the check builds it, and
/// the 1F1B loop the exercise writes for it.
#pragma once

#include "core/tensor.hpp"

namespace tplab::lessons::pipeline_stage {

/// Stage s of S of a GPT cut by depth (stage s holds blocks [s L/S, (s+1) L/S); the first also
/// the embedding, the last the final LayerNorm, the LM head and the loss), for one step of M
/// micro-batches, and its two neighbours. The check builds it; the exercise only calls it.
///
/// Every tensor passed between stages is one micro-batch's activation x[m, h] (or its
/// gradient), this rank's block of it as the stage's tensor-parallel scheme holds it (1D: whole,
/// [m, h]). The transfers go through the stage's pipeline group "pp" (rank k of it is stage k):
/// a receive blocks until the message has arrived; a send is started and returns at once, and
/// the stage keeps the tensor until the send completes at the end of the step. Messages from one
/// stage to another arrive in the order they were sent.
class Stage {
 public:
  virtual ~Stage() = default;

  /// s: this rank's stage, 0..S-1.
  virtual int index() const = 0;
  /// S: the stages of the pipeline.
  virtual int stages() const = 0;
  /// Stage 0: it embeds the token ids itself, so nothing comes from before it.
  bool first() const { return index() == 0; }
  /// Stage S - 1: it ends in the loss, so nothing goes on after it.
  bool last() const { return index() == stages() - 1; }

  /// F(micro): micro-batch `micro`'s forward through the stage. `x` is the activation stage
  /// s - 1 sent for it (receive_activation()), taken over by the stage (pass std::move(x), or
  /// the receive's result itself); on the first stage an empty Tensor(). Returns the stage's
  /// output [m, h] for stage s + 1; an empty Tensor on the last stage, which computes the
  /// micro-batch's loss instead. What backward needs of F(micro) stays allocated until
  /// B(micro) has run.
  virtual Tensor forward(int micro, Tensor&& x) = 0;
  /// B(micro), after F(micro): `dy` is the gradient of F(micro)'s output that stage s + 1 sent
  /// (receive_gradient()), taken over; on the last stage an empty Tensor() (it starts from its
  /// loss). Returns the gradient of F(micro)'s input [m, h] for stage s - 1; an empty Tensor on
  /// the first stage. Adds the micro-batch's parameter gradients to the step's, in the order
  /// the backwards run, and frees what F(micro) kept.
  virtual Tensor backward(int micro, Tensor&& dy) = 0;

  /// Receives the next activation stage s - 1 sends (blocking). Not on the first stage.
  virtual Tensor receive_activation() = 0;
  /// Starts sending `y` to stage s + 1 and returns. Not on the last stage.
  virtual void send_activation(const Tensor& y) = 0;
  /// Receives the next gradient stage s + 1 sends (blocking). Not on the last stage.
  virtual Tensor receive_gradient() = 0;
  /// Starts sending `dx` to stage s - 1 and returns. Not on the first stage.
  virtual void send_gradient(const Tensor& dx) = 0;
};

/// One training step of `stage` on `micro_batches` micro-batches, 0..M-1, in the order of 1F1B
/// (Narayanan et al. 2021): a warm-up of min(S - s - 1, M) forwards, then one forward and one
/// backward in turn (F(i + w), B(i)) while forwards remain, then the remaining backwards. Each
/// F takes its input from the stage before (but on the first stage) and sends its output on
/// (but on the last); each B takes its gradient from the stage after (but on the last) and
/// sends its input's gradient back (but on the first). Every stage runs this on its own ranks
/// at once.
void one_f_one_b(Stage& stage, int micro_batches);

}  // namespace tplab::lessons::pipeline_stage
