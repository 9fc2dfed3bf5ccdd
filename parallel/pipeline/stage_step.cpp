/// @file
/// run_stage_step: the actions in order, with receives before and started sends after.
#include "pipeline/stage_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
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

/// Runs `action` on `model` (its input `in`), naming the stage and the action in any error it
/// throws, so that a job ended by one stage says which.
Tensor run_pass(gpt::GptModel& model, const StageAction& action, const Tensor& in,
                const MicroBatch& batch) {
  const auto where = [&] {
    return fmt::format("pipeline stage {} of {}, {}{}: ", model.stage().stage, model.stage().stages,
                       action.pass == StageAction::Pass::forward ? 'F' : 'B', action.micro);
  };
  try {
    return action.pass == StageAction::Pass::forward
               ? model.forward(action.micro, in, batch.ids, batch.targets)
               : model.backward(action.micro, in);
  } catch (const UsageError& e) {
    throw UsageError(where() + e.what());
  } catch (const InternalError& e) {
    throw InternalError(where() + e.what());
  }
}

}  // namespace

StageStepRecord run_stage_step(gpt::GptModel& model, Comm* pp, Device& device, DType dtype,
                               std::span<const StageAction> actions,
                               std::span<const MicroBatch> batches, std::uint32_t step) {
  const gpt::GptStage& stage = model.stage();
  check(stage.stages == 1 || (pp != nullptr && pp->size() == stage.stages),
        "a pipeline stage needs its PP group");
  check(static_cast<int>(batches.size()) == model.micro_batches(),
        "one batch for every micro-batch");
  const auto live = [&] { return static_cast<std::int64_t>(device.allocations().live_bytes()); };
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  const Clock::time_point start = Clock::now();
  KeptBytes kept(batches.size());  // F(i)'s allocations besides its output, until B(i)
  StageStepRecord record;
  std::vector<InFlight> sends;
  model.start_step(step);
  for (const StageAction& action : actions) {
    const MicroBatch& batch = batches[static_cast<std::size_t>(action.micro)];
    const bool forward = action.pass == StageAction::Pass::forward;
    TraceScope traced(device.trace(), fmt::format("{}{}", forward ? 'F' : 'B', action.micro),
                      "pipeline", {{"micro_batch", action.micro}, {"stage", stage.stage}});
    // F takes its input from the stage before; B its output's gradient from the stage after.
    const bool receives = forward ? !stage.first() : !stage.last();
    const int from = forward ? stage.stage - 1 : stage.stage + 1;
    const std::int64_t before = live();
    Tensor in;
    if (receives) {
      in = device.empty(model.boundary_extents(), dtype);
      pp->recv(in, from);
      ++record.receives;
    }
    const Clock::time_point computing = Clock::now();
    Tensor out = run_pass(model, action, in, batch);
    device.synchronize();  // a GPU's queued work is part of the pass
    record.busy_seconds += seconds_since(computing);
    in = Tensor();
    const auto i = static_cast<std::size_t>(action.micro);
    if (forward) {
      kept.forward_kept(i, live() - before - bytes_of(out));
    } else {
      kept.backward_done(i);
    }
    const bool sends_on = forward ? !stage.last() : !stage.first();
    if (sends_on) {
      const int to = forward ? stage.stage + 1 : stage.stage - 1;
      CommRequest request = pp->start_send(out, to);
      sends.push_back({std::move(request), std::move(out)});
      ++record.sends;
    }
  }
  for (InFlight& s : sends) s.request.wait();
  model.finish_step();
  record.kept_bytes = kept.most();
  record.seconds = seconds_since(start);
  return record;
}

}  // namespace tplab::pipeline
