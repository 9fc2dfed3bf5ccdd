#include "comm/collective.hpp"

#include <fmt/format.h>

namespace tplab {

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::all_reduce:
      return "all_reduce";
    case Collective::all_gather:
      return "all_gather";
    case Collective::reduce_scatter:
      return "reduce_scatter";
    case Collective::broadcast:
      return "broadcast";
    case Collective::reduce:
      return "reduce";
    case Collective::send:
      return "send";
    case Collective::recv:
      return "recv";
  }
  return "?";
}

std::string_view reduce_op_name(ReduceOp op) {
  return op == ReduceOp::sum ? "sum" : "max";
}

std::string collective_form(Collective c, ReduceOp op, int root) {
  std::string text(collective_name(c));
  if (c == Collective::send) return fmt::format("{}(to {})", text, root);
  if (c == Collective::recv) return fmt::format("{}(from {})", text, root);
  if (reduces(c) && rooted(c))
    return fmt::format("{}({}, root {})", text, reduce_op_name(op), root);
  if (reduces(c)) return fmt::format("{}({})", text, reduce_op_name(op));
  if (rooted(c)) return fmt::format("{}(root {})", text, root);
  return text;
}

bool reduces(Collective c) {
  return c == Collective::all_reduce || c == Collective::reduce_scatter || c == Collective::reduce;
}

bool rooted(Collective c) {
  return c == Collective::broadcast || c == Collective::reduce || c == Collective::send ||
         c == Collective::recv;
}

double bus_factor(Collective c, int group_size) {
  const double n = group_size;
  switch (c) {
    case Collective::all_reduce:
      return 2.0 * (n - 1) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter:
      return (n - 1) / n;
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::send:
    case Collective::recv:
      return 1.0;
  }
  return 0.0;
}

}  // namespace tplab
