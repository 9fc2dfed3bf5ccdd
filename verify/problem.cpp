#include "problem.hpp"

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "tplab/reference/block.hpp"

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

ref::Matrix<double> to_matrix(const HostArray& a) {
  check(a.extents.size() == 2, "a matrix needs two extents");
  ref::Matrix<double> m(a.extents[0], a.extents[1]);
  std::copy(a.values.begin(), a.values.end(), m.data());
  return m;
}

ref::Vector<double> to_vector(const HostArray& a) {
  check(a.extents.size() == 1, "a vector needs one extent");
  return Eigen::Map<const ref::Vector<double>>(a.values.data(), a.extents[0]);
}

template <typename Derived>
HostArray to_array(const Eigen::MatrixBase<Derived>& m, Extents extents) {
  HostArray a{std::move(extents), {}};
  const ref::Matrix<double> row_major = m;
  a.values.assign(row_major.data(), row_major.data() + row_major.size());
  return a;
}

/// Visits every parameter of the reference's struct with its name.
template <typename Params, typename F>
void for_each_parameter(Params& p, F&& f) {
  f("ln1_gamma", p.ln1_gamma);
  f("ln1_beta", p.ln1_beta);
  f("wq", p.wq);
  f("bq", p.bq);
  f("wk", p.wk);
  f("bk", p.bk);
  f("wv", p.wv);
  f("bv", p.bv);
  f("wo", p.wo);
  f("bo", p.bo);
  f("ln2_gamma", p.ln2_gamma);
  f("ln2_beta", p.ln2_beta);
  f("w1", p.w1);
  f("b1", p.b1);
  f("w2", p.w2);
  f("b2", p.b2);
}

}  // namespace

HostArrays make_inputs(const BlockShape& shape, std::uint64_t seed, Workload workload,
                       Values values) {
  Draw d(seed);
  HostArrays in;
  const auto add = [&](std::string_view name, double scale, double offset = 0.0) {
    in.emplace(std::string(name), draw(global_extents(name, shape), d, values, scale, offset));
  };
  add("x", 1.0);
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

HostArrays reference_outputs(const BlockShape& shape, const HostArrays& inputs, Workload workload) {
  const ref::Matrix<double> x = to_matrix(inputs.at("x"));
  const ref::Matrix<double> dy = to_matrix(inputs.at("dy"));
  const Extents activation = global_extents("x", shape);
  HostArrays out;

  if (workload == Workload::linear_pair) {
    const auto w1 = to_matrix(inputs.at("w1"));
    const auto w2 = to_matrix(inputs.at("w2"));
    const ref::Matrix<double> hidden = ref::linear_forward(x, w1, to_vector(inputs.at("b1")));
    const ref::Matrix<double> y = ref::linear_forward(hidden, w2, to_vector(inputs.at("b2")));
    ref::Matrix<double> dhidden, dx, dw1, dw2;
    ref::Vector<double> db1, db2;
    ref::linear_backward(hidden, w2, dy, dhidden, dw2, db2);
    ref::linear_backward(x, w1, dhidden, dx, dw1, db1);
    out.emplace("y", to_array(y, activation));
    out.emplace("dx", to_array(dx, activation));
    out.emplace("d_w1", to_array(dw1, global_extents("w1", shape)));
    out.emplace("d_b1", to_array(db1, global_extents("b1", shape)));
    out.emplace("d_w2", to_array(dw2, global_extents("w2", shape)));
    out.emplace("d_b2", to_array(db2, global_extents("b2", shape)));
    return out;
  }

  ref::BlockParams<double> params;
  for_each_parameter(params, [&](std::string_view name, auto& field) {
    const HostArray& a = inputs.find(name)->second;
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, ref::Vector<double>>) {
      field = to_vector(a);
    } else {
      field = to_matrix(a);
    }
  });
  const ref::Shape ref_shape{shape.b, shape.s, shape.h, shape.heads};
  const ref::BlockResult<double> r = ref::block_forward_backward(ref_shape, x, params, dy);
  out.emplace("y", to_array(r.y, activation));
  out.emplace("dx", to_array(r.dx, activation));
  for_each_parameter(r.grads, [&](std::string_view name, const auto& grad) {
    out.emplace(gradient_name(name), to_array(grad, global_extents(name, shape)));
  });
  return out;
}

}  // namespace tplab::verify
