#include "comm/fault_injecting_comm.hpp"

#include "comm/fault_injection.hpp"

namespace tplab {
namespace {

/// After collective number `index` completed into `result`: the noise or the NaN, if planned.
void inject_after(Comm& transport, long index, Collective collective, const std::string& group,
                  Tensor& result) {
  add_noise_if_due(index, collective, group, result);
  if (nan_due(index, collective, group)) {
    transport.write_first_element(result, quiet_nan_bytes(result.dtype()));
  }
}

/// A started collective whose result may get the planned NaN or noise once it completes. It
/// keeps the result's storage alive for that.
class InjectedPending final : public PendingTransport {
 public:
  InjectedPending(std::unique_ptr<PendingTransport> inner, Comm& transport, long index,
                  Collective collective, const Tensor& result)
      : inner_(std::move(inner)),
        transport_(transport),
        index_(index),
        collective_(collective),
        result_(result) {}

  void wait() override {
    if (inner_) inner_->wait();
    inject_after(transport_, index_, collective_, transport_.group(), result_);
  }

 private:
  std::unique_ptr<PendingTransport> inner_;
  Comm& transport_;
  long index_;
  Collective collective_;
  Tensor result_;  // shares the result's storage
};

}  // namespace

FaultInjectingComm::FaultInjectingComm(std::unique_ptr<Comm> inner)
    : ForwardingComm(std::move(inner)) {}

std::unique_ptr<Comm> FaultInjectingComm::split(int color, int key, const std::string& group) {
  return std::make_unique<FaultInjectingComm>(inner().split(color, key, group));
}

std::unique_ptr<DeviceInterval> FaultInjectingComm::run(const CollectiveCall& call) {
  const long index = before_collective(call.collective, group());
  std::unique_ptr<DeviceInterval> on_device = inner().run(call);
  inject_after(inner(), index, call.collective, group(), call.out);
  return on_device;
}

std::unique_ptr<PendingTransport> FaultInjectingComm::start(const CollectiveCall& call) {
  const long index = before_collective(call.collective, group());
  std::unique_ptr<PendingTransport> pending = inner().start(call);
  return std::make_unique<InjectedPending>(std::move(pending), inner(), index, call.collective,
                                           call.out);
}

}  // namespace tplab
