/// @file
/// Converting global HostArrays into the reference's Eigen types and back.
#pragma once

#include <algorithm>
#include <string_view>
#include <type_traits>

#include "core/error.hpp"
#include "host_array.hpp"
#include "tplab/reference/block.hpp"

namespace tplab::verify {

/// The array as the reference's row-major matrix, in precision T.
template <typename T>
reference::Matrix<T> to_reference_matrix(const HostArray& a) {
  check(a.extents.size() == 2, "a matrix needs two extents");
  return Eigen::Map<const reference::Matrix<double>>(a.values.data(), a.extents[0], a.extents[1])
      .template cast<T>();
}

/// The array as the reference's vector, in precision T.
template <typename T>
reference::Vector<T> to_reference_vector(const HostArray& a) {
  check(a.extents.size() == 1, "a vector needs one extent");
  return Eigen::Map<const reference::Vector<double>>(a.values.data(), a.extents[0])
      .template cast<T>();
}

/// A reference matrix or vector as a HostArray with the given extents.
template <typename Derived>
HostArray to_host_array(const Eigen::MatrixBase<Derived>& m, Extents extents) {
  const reference::Matrix<double> row_major = m.template cast<double>();
  return HostArray{std::move(extents),
                   std::vector<double>(row_major.data(), row_major.data() + row_major.size())};
}

/// Calls f(name, field) for every parameter of the reference's struct.
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

/// The block's parameters from `inputs`, in precision T.
template <typename T>
reference::BlockParams<T> to_reference_params(const HostArrays& inputs) {
  reference::BlockParams<T> params;
  for_each_parameter(params, [&](std::string_view name, auto& field) {
    const HostArray& a = inputs.find(name)->second;
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, reference::Vector<T>>) {
      field = to_reference_vector<T>(a);
    } else {
      field = to_reference_matrix<T>(a);
    }
  });
  return params;
}

}  // namespace tplab::verify
