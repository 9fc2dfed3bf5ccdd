/// @file
/// The alpha-beta time of one kind of collective.
#include "alpha_beta.hpp"

namespace tplab::model {

int ring_steps(Collective collective, int n) {
  switch (collective) {
    case Collective::all_reduce:
      return 2 * (n - 1);
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::broadcast:
    case Collective::reduce:
      return n - 1;
    case Collective::send:
    case Collective::recv:
      return 1;
  }
  return 0;
}

CollectiveTime collective_time(const PredictedCollective& row, const LinkRate& rate,
                               int bytes_per_element) {
  CollectiveTime t;
  t.latency_s =
      static_cast<double>(row.calls) * ring_steps(row.collective, row.group_size) * rate.latency_s;
  t.bandwidth_s = row.bus_elements() * bytes_per_element / rate.bandwidth_bytes_per_s;
  return t;
}

}  // namespace tplab::model
