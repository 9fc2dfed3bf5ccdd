#include "device/device.hpp"

#include <exception>

#include "core/error.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab {

Device::Device(DeviceFamilies families) : families_(std::move(families)) {
  const DeviceFamilies& f = families_;
  if (!f.gemm || !f.elementwise || !f.gelu || !f.softmax || !f.heads || !f.layernorm ||
      !f.vocabulary || !f.optimizer) {
    throw InternalError(
        "Device: a backend left a family of operations out; give each of "
        "DeviceFamilies' members an object");
  }
}

/// What is kept of the operation being traced until it ends.
struct Device::TracedOp {
  std::string name;
  nlohmann::json args;
  double begin_us = 0;
  std::unique_ptr<OpTimer> timer;
};

Device::~Device() = default;

void Device::trace_into(TraceRecorder* trace) {
  check(ops_.empty(), "Device::trace_into: called while an operation was being traced");
  trace_ = trace;
}

std::unique_ptr<Device::OpTimer> Device::start_op_timer(const char*, TraceRecorder&) {
  return nullptr;
}

const char* Device::product_form(Transpose ta, Transpose tb) {
  const bool a = ta == Transpose::yes, b = tb == Transpose::yes;
  if (a && b) return "A^T B^T";
  if (a) return "A^T B";
  if (b) return "A B^T";
  return "A B";
}

void Device::op_began(const char* name, std::initializer_list<const Tensor*> operands,
                      const char* form) {
  TracedOp op;
  op.name = name;
  nlohmann::json extents = nlohmann::json::array();
  for (const Tensor* t : operands) extents.push_back(to_string(t->extents()));
  op.args = {{"operands", std::move(extents)}, {"dtype", dtype_name((*operands.begin())->dtype())}};
  if (form != nullptr) op.args["product"] = form;
  op.timer = start_op_timer(name, *trace_);
  op.begin_us = trace_->now_us();
  ops_.push_back(std::move(op));
}

void Device::op_ended() noexcept {
  const double end_us = trace_->now_us();
  TracedOp op = std::move(ops_.back());
  ops_.pop_back();
  // An operation that threw is not a slice: the error goes on unchanged, the timer closes itself.
  if (std::uncaught_exceptions() > 0) return;
  try {
    const int host = static_cast<int>(TraceTrack::host);
    if (!op.timer) {
      trace_->slice(host, op.name, "op", op.begin_us, end_us, op.args);
      return;
    }
    // Issued here, run later on the device: the host slice is the launch, the device one the
    // work (none when its end event could not be recorded).
    if (std::unique_ptr<DeferredSpan> span = op.timer->finish()) {
      trace_->deferred_slice(static_cast<int>(TraceTrack::device), op.name, "op", std::move(span),
                             op.args);
    }
    trace_->slice(host, op.name, "launch", op.begin_us, end_us, op.args);
  } catch (...) {
    // Recording is never worth ending the program over (std::bad_alloc of a full trace).
  }
}

Tensor Device::zeros(const Extents& extents, DType dtype) {
  Tensor t = empty(extents, dtype);
  fill(t, 0.0);
  return t;
}

}  // namespace tplab
