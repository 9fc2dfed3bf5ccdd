/// @file
/// run_stage_step: the actions in order, with receives before and started sends after.
#include "pipeline/stage_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "core/error.hpp"
#include "layers/finite_check.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab::pipeline {
namespace {

/// A send still on its way, and the tensor it reads from.
struct InFlight {
  CommRequest request;
  Tensor sent;
};

/// The bytes of `t`'s storage; 0 for no tensor.
std::int64_t bytes_of(const Tensor& t) {
  return t.defined() ? static_cast<std::int64_t>(t.bytes()) : 0;
}

/// What each micro-batch in flight keeps for its backward, and the most kept at once.
class KeptBytes {
 public:
  explicit KeptBytes(std::size_t micro_batches) : kept_(micro_batches, 0) {}
  /// F(i) left `bytes` allocated for B(i).
  void forward_kept(std::size_t i, std::int64_t bytes) {
    kept_[i] = bytes;
    now_ += bytes;
    most_ = std::max(most_, now_);
  }
  /// B(i) has run: what F(i) kept is free again.
  void backward_done(std::size_t i) { now_ -= kept_[i]; }
  std::int64_t most() const { return most_; }

 private:
  std::vector<std::int64_t> kept_;
  std::int64_t now_ = 0;
  std::int64_t most_ = 0;
};

/// Runs `work` (one action of `model`'s stage: its receive, pass and send), naming the stage and
/// the action in any error it throws, so that a job ended by one stage says which.
template <class Work>
void naming_the_stage(const gpt::GptModel& model, const StageAction& action, Work work) {
  const auto where = [&] {
    return fmt::format("pipeline stage {} of {}, {}{}: ", model.stage().stage, model.stage().stages,
                       action.pass == StageAction::Pass::forward ? 'F' : 'B', action.micro);
  };
  try {
    work();
  } catch (const UsageError& e) {
    // one stage refused something mid-step while the others wait on it: the job must end
    throw InternalError(where() + e.what());
  } catch (const InternalError& e) {
    throw InternalError(where() + e.what());
  } catch (const NonFiniteError& e) {
    throw NonFiniteError(where() + e.what());
  } catch (const NoDeviceError&) {
    throw;  // the device's own reason, which decides the exit code
  } catch (const std::exception& e) {
    throw std::runtime_error(where() + e.what());
  }
}

/// Where `n` stands in the order values flow through a stage's step: its forwards, then its
/// backwards, by micro-batch, then its parameter gradients; within one pass, a value received
/// before one made. (1F1B runs B(0) before F(2): the order the actions run in is not this one.)
std::tuple<int, int, int> flow_order(const NonFinite& n) {
  if (n.kind == NonFinite::Kind::gradient) return {2, 0, 0};
  return {n.action.pass == StageAction::Pass::forward ? 0 : 1, n.action.micro,
          static_cast<int>(n.kind)};
}

/// Keeps `kind` at `action` as the stage's first NaN or Inf unless one earlier in the order
/// values flow was seen.
void note_non_finite(NonFinite& first, NonFinite::Kind kind, const StageAction& action) {
  const NonFinite seen{kind, action};
  if (first.kind == NonFinite::Kind::none || flow_order(seen) < flow_order(first)) first = seen;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// One stage's step in progress: what it has measured, and its sends still on their way.
class StageRun {
 public:
  StageRun(gpt::GptModel& model, Comm* pp, Device& device, DType dtype, std::size_t micro_batches)
      : model_(model), pp_(pp), device_(device), dtype_(dtype), kept_(micro_batches) {}

  /// `action` on `batch`: its receive, its pass, then its send started.
  void run(const StageAction& action, const MicroBatch& batch) {
    const gpt::GptStage& stage = model_.stage();
    const bool forward = action.pass == StageAction::Pass::forward;
    const std::int64_t before = live();
    // F takes its input from the stage before; B its output's gradient from the stage after.
    Tensor in;
    if (forward ? !stage.first() : !stage.last()) {
      in = receive(action, forward ? stage.stage - 1 : stage.stage + 1);
    }
    const Clock::time_point computing = Clock::now();
    Tensor out = forward ? model_.forward(action.micro, in, batch.ids, batch.targets)
                         : model_.backward(action.micro, in);
    device_.synchronize();  // a GPU's queued work is part of the pass
    in = Tensor();
    const auto i = static_cast<std::size_t>(action.micro);
    if (forward) {
      kept_.forward_kept(i, live() - before - bytes_of(out));
    } else {
      kept_.backward_done(i);
    }
    check_made(action, out);
    record_.busy_seconds += seconds_since(computing);  // the checks are the stage's work too
    if (forward ? !stage.last() : !stage.first()) {
      CommRequest request = pp_->start_send(out, forward ? stage.stage + 1 : stage.stage - 1);
      sends_.push_back({std::move(request), std::move(out)});
      ++record_.sends;
    }
  }

  /// Waits for the sends and ends the model's step; its parameter gradients are checked too.
  StageStepRecord finish(Clock::time_point start) {
    for (InFlight& s : sends_) s.request.wait();
    const Clock::time_point computing = Clock::now();
    model_.finish_step();
    for (const auto& [name, gradient] : model_.gradients()) {
      if (device_.first_nonfinite(gradient) >= 0) {
        note_non_finite(record_.non_finite, NonFinite::Kind::gradient, {});
        break;
      }
    }
    record_.busy_seconds += seconds_since(computing);
    record_.kept_bytes = kept_.most();
    record_.seconds = seconds_since(start);
    return record_;
  }

 private:
  std::int64_t live() const {
    return static_cast<std::int64_t>(device_.allocations().live_bytes());
  }

  /// The tensor `action` takes from stage `from`, checked on arrival.
  Tensor receive(const StageAction& action, int from) {
    Tensor in = device_.empty(model_.boundary_extents(), dtype_);
    pp_->recv(in, from);
    ++record_.receives;
    const Clock::time_point checking = Clock::now();
    if (device_.first_nonfinite(in) >= 0) {
      note_non_finite(record_.non_finite, NonFinite::Kind::arrived, action);
    }
    record_.busy_seconds += seconds_since(checking);
    return in;
  }

  /// Checks what `action` made: its output (before it is sent on) and on the last stage's
  /// forward every token's loss.
  void check_made(const StageAction& action, const Tensor& out) {
    if (out.defined() && device_.first_nonfinite(out) >= 0) {
      note_non_finite(record_.non_finite, NonFinite::Kind::made, action);
    }
    if (action.pass == StageAction::Pass::forward && model_.counts_loss()) {
      const std::vector<double>& losses = model_.losses(action.micro);
      if (!std::all_of(losses.begin(), losses.end(), [](double l) { return std::isfinite(l); })) {
        note_non_finite(record_.non_finite, NonFinite::Kind::loss, action);
      }
    }
  }

  gpt::GptModel& model_;
  Comm* pp_;
  Device& device_;
  DType dtype_;
  KeptBytes kept_;  // F(i)'s allocations besides its output, until B(i)
  StageStepRecord record_;
  std::vector<InFlight> sends_;
};

}  // namespace

StageStepRecord run_stage_step(gpt::GptModel& model, Comm* pp, Device& device, DType dtype,
                               std::span<const StageAction> actions,
                               std::span<const MicroBatch> batches, std::uint32_t step) {
  const gpt::GptStage& stage = model.stage();
  check(stage.stages == 1 || (pp != nullptr && pp->size() == stage.stages),
        "a pipeline stage needs its PP group");
  check(static_cast<int>(batches.size()) == model.micro_batches(),
        "one batch for every micro-batch");
  const Clock::time_point start = Clock::now();
  StageRun run(model, pp, device, dtype, batches.size());
  model.start_step(step);
  for (const StageAction& action : actions) {
    const bool forward = action.pass == StageAction::Pass::forward;
    TraceScope traced(device.trace(), fmt::format("{}{}", forward ? 'F' : 'B', action.micro),
                      "pipeline", {{"micro_batch", action.micro}, {"stage", stage.stage}});
    naming_the_stage(model, action,
                     [&] { run.run(action, batches[static_cast<std::size_t>(action.micro)]); });
  }
  return run.finish(start);
}

}  // namespace tplab::pipeline
