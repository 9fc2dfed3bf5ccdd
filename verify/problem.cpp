#include "problem.hpp"

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "reference_bridge.hpp"

namespace tplab::verify {
namespace {

namespace ref = tplab::reference;

/// Uniform draws in [-1, 1) that are the same on every platform (std's distributions are not).
class Draw {
 public:
  explicit Draw(std::uint64_t seed) : engine_(seed) {}
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-52 - 1.0; }
  double integer() { return static_cast<double>(static_cast<int>(engine_() % 5) - 2); }

 private:
  std::mt19937_64 engine_;
};

HostArray draw(const Extents& extents, Draw& d, Values values, double scale, double offset) {
  HostArray a{extents, std::vector<double>(static_cast<std::size_t>(element_count(extents)))};
  for (double& v : a.values) {
    v = values == Values::integer ? d.integer() : offset + scale * d.uniform();
  }
  return a;
}

}  // namespace

HostArrays make_inputs(const BlockShape& shape, std::uint64_t seed, Workload workload,
                       Values values) {
  Draw d(seed);
  HostArrays in;
  const auto add = [&](std::string_view name, double scale, double offset = 0.0) {
    in.emplace(std::string(name), draw(global_extents(name, shape), d, values, scale, offset));
  };
  add("x", 1.0, values == Values::shifted ? kShiftedInputMean : 0.0);
  add("dy", 1.0);
  const double hidden_fan_in = 1.0 / std::sqrt(static_cast<double>(shape.h));
  const double ffn_fan_in = 1.0 / std::sqrt(static_cast<double>(shape.ffn()));
  if (workload == Workload::block) {
    add("ln1_gamma", 0.5, 1.0);
    add("ln1_beta", 0.5);
    for (auto w : {"wq", "wk", "wv", "wo"}) add(w, hidden_fan_in);
    for (auto b : {"bq", "bk", "bv", "bo"}) add(b, 0.5);
    add("ln2_gamma", 0.5, 1.0);
    add("ln2_beta", 0.5);
  }
  add("w1", hidden_fan_in);
  add("b1", 0.5);
  add("w2", ffn_fan_in);
  add("b2", 0.5);
  return in;
}

HostArrays reference_outputs(const BlockShape& shape, const HostArrays& inputs, Workload workload,
                             const DropoutOptions& dropout) {
  const ref::Matrix<double> x = to_reference_matrix<double>(inputs.at("x"));
  const ref::Matrix<double> dy = to_reference_matrix<double>(inputs.at("dy"));
  const Extents activation = global_extents("x", shape);
  HostArrays out;

  if (workload == Workload::linear_pair) {
    const auto w1 = to_reference_matrix<double>(inputs.at("w1"));
    const auto w2 = to_reference_matrix<double>(inputs.at("w2"));
    const ref::Matrix<double> hidden =
        ref::linear_forward(x, w1, to_reference_vector<double>(inputs.at("b1")));
    const ref::Matrix<double> y =
        ref::linear_forward(hidden, w2, to_reference_vector<double>(inputs.at("b2")));
    ref::Matrix<double> dhidden, dx, dw1, dw2;
    ref::Vector<double> db1, db2;
    ref::linear_backward(hidden, w2, dy, dhidden, dw2, db2);
    ref::linear_backward(x, w1, dhidden, dx, dw1, db1);
    out.emplace("y", to_host_array(y, activation));
    out.emplace("dx", to_host_array(dx, activation));
    out.emplace("d_w1", to_host_array(dw1, global_extents("w1", shape)));
    out.emplace("d_b1", to_host_array(db1, global_extents("b1", shape)));
    out.emplace("d_w2", to_host_array(dw2, global_extents("w2", shape)));
    out.emplace("d_b2", to_host_array(db2, global_extents("b2", shape)));
    return out;
  }

  const ref::BlockParams<double> params = to_reference_params<double>(inputs);
  const ref::Shape ref_shape{shape.b, shape.s, shape.h, shape.heads};
  // verify draws the first step's masks of the first layer, as the parallel block does
  const ref::BlockResult<double> r = ref::block_forward_backward(
      ref_shape, x, params, dy, ref::Dropout{dropout.p, dropout.seed, 0, 0});
  out.emplace("y", to_host_array(r.y, activation));
  out.emplace("dx", to_host_array(r.dx, activation));
  for_each_parameter(r.grads, [&](std::string_view name, const auto& grad) {
    out.emplace(gradient_name(name), to_host_array(grad, global_extents(name, shape)));
  });
  return out;
}

}  // namespace tplab::verify
