#include "comm/mpi_bf16.hpp"

#include <cmath>

#include "comm/mpi_call.hpp"
#include "core/bf16.hpp"

namespace tplab {
namespace {

/// inout[i] = in[i] + inout[i], in f32 and rounded once to bf16.
void bf16_sum(void* in, void* inout, int* count, MPI_Datatype*) {
  const auto* a = static_cast<const Bf16Bits*>(in);
  auto* b = static_cast<Bf16Bits*>(inout);
  for (int i = 0; i < *count; ++i)
    b[i] = bf16_from_float(float_from_bf16(a[i]) + float_from_bf16(b[i]));
}

/// inout[i] = max(in[i], inout[i]), NaN kept (as MPI_MAX on floats keeps it in practice).
void bf16_max(void* in, void* inout, int* count, MPI_Datatype*) {
  const auto* a = static_cast<const Bf16Bits*>(in);
  auto* b = static_cast<Bf16Bits*>(inout);
  for (int i = 0; i < *count; ++i) {
    const float x = float_from_bf16(a[i]), y = float_from_bf16(b[i]);
    if (std::isnan(x) || x > y) b[i] = a[i];
  }
}

MPI_Op make_op(MPI_User_function* function) {
  MPI_Op op = MPI_OP_NULL;
  mpi_check(MPI_Op_create(function, /*commute=*/1, &op), "MPI_Op_create");
  return op;
}

}  // namespace

MPI_Op mpi_bf16_op(ReduceOp op) {
  static const MPI_Op sum = make_op(&bf16_sum);
  static const MPI_Op max = make_op(&bf16_max);
  return op == ReduceOp::sum ? sum : max;
}

}  // namespace tplab
