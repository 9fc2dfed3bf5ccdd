#include "comm/collective.hpp"

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
  }
  return "?";
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
      return 1.0;
  }
  return 0.0;
}

}  // namespace tplab
