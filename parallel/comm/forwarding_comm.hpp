/// @file
/// ForwardingComm: a communicator that hands everything to another, for wrappers to build on.
#pragma once

#include <memory>
#include <string>

#include "comm/comm.hpp"

namespace tplab {

/// Hands every call to the communicator it wraps. A wrapper (CountingComm, FaultInjectingComm,
/// a test's double) derives from it and overrides the calls it changes: run() and start() for
/// what happens around a collective, split() to wrap the new group alike.
class ForwardingComm : public Comm {
 public:
  /// Wraps `inner` and owns it.
  explicit ForwardingComm(std::unique_ptr<Comm> inner);
  /// Wraps `inner`, which must outlive this communicator.
  explicit ForwardingComm(Comm& inner);

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  std::string transport() const override { return inner_->transport(); }
  std::vector<int> world_ranks() const override { return inner_->world_ranks(); }
  CommCounters& counters() override { return inner_->counters(); }
  void barrier() override { inner_->barrier(); }
  std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) override {
    return inner_->run(call);
  }
  std::unique_ptr<PendingTransport> start(const CollectiveCall& call) override {
    return inner_->start(call);
  }
  void write_first_element(Tensor& t, std::span<const std::byte> value) override {
    inner_->write_first_element(t, value);
  }

 protected:
  /// The communicator this one wraps.
  Comm& inner() { return *inner_; }

 private:
  std::unique_ptr<Comm> owned_;
  Comm* inner_;
};

}  // namespace tplab
