#include "collective_cases.hpp"

#include <fmt/format.h>

#include <string>

#include "core/error.hpp"

namespace tplab::bench {
namespace {

MPI_Datatype mpi_type(const Tensor& t) {
  return t.dtype() == DType::f64 ? MPI_DOUBLE : MPI_FLOAT;
}

int count(const Tensor& t) {
  return static_cast<int>(t.numel());
}

/// What a sum over the ranks leaves at element j when every rank put crafted_input(q, j).
double sum_over_ranks(int p, std::int64_t j) {
  double sum = 0;
  for (int q = 0; q < p; ++q) sum += crafted_input(q, j);
  return sum;
}

std::int64_t whole(std::int64_t n, int) {
  return n;
}
std::int64_t one_shard(std::int64_t n, int p) {
  return n / p;
}
std::int64_t in_place(std::int64_t, int) {
  return 0;
}
bool every_rank(int) {
  return true;
}
constexpr int kRoot = 0;
bool root_only(int r) {
  return r == kRoot;
}

// ---- all_reduce: x = sum over ranks of x, in place -----------------------------------------

const CollectiveCase kAllReduce{
    Collective::all_reduce,
    whole,
    in_place,
    [](int, int p, std::int64_t, std::int64_t j) { return sum_over_ranks(p, j); },
    every_rank,
    [](Comm& comm, Tensor& x, Tensor&) { comm.all_reduce(x); },
    [](MPI_Comm comm, Tensor& x, Tensor&) {
      MPI_Allreduce(MPI_IN_PLACE, x.data(), count(x), mpi_type(x), MPI_SUM, comm);
    }};

// ---- all_gather: full = the shards of ranks 0..p-1, one after another -----------------------

const CollectiveCase kAllGather{
    Collective::all_gather,
    one_shard,
    whole,
    [](int, int p, std::int64_t n, std::int64_t j) {
      const std::int64_t chunk = n / p;  // element j came from rank j / chunk
      return crafted_input(static_cast<int>(j / chunk), j % chunk);
    },
    every_rank,
    [](Comm& comm, Tensor& shard, Tensor& full) { comm.all_gather(shard, full); },
    [](MPI_Comm comm, Tensor& shard, Tensor& full) {
      MPI_Allgather(shard.data(), count(shard), mpi_type(shard), full.data(), count(shard),
                    mpi_type(full), comm);
    }};

// ---- reduce_scatter: rank r keeps chunk r of the sum of every rank's full tensor ------------

const CollectiveCase kReduceScatter{
    Collective::reduce_scatter,
    whole,
    one_shard,
    [](int r, int p, std::int64_t n, std::int64_t j) { return sum_over_ranks(p, r * (n / p) + j); },
    every_rank,
    [](Comm& comm, Tensor& full, Tensor& shard) { comm.reduce_scatter(full, shard); },
    [](MPI_Comm comm, Tensor& full, Tensor& shard) {
      MPI_Reduce_scatter_block(full.data(), shard.data(), count(shard), mpi_type(full), MPI_SUM,
                               comm);
    }};

// ---- broadcast: every rank ends with the root's tensor, in place -----------------------------

const CollectiveCase kBroadcast{
    Collective::broadcast,
    whole,
    in_place,
    [](int, int, std::int64_t, std::int64_t j) { return crafted_input(kRoot, j); },
    every_rank,
    [](Comm& comm, Tensor& x, Tensor&) { comm.broadcast(x, kRoot); },
    [](MPI_Comm comm, Tensor& x, Tensor&) {
      MPI_Bcast(x.data(), count(x), mpi_type(x), kRoot, comm);
    }};

// ---- reduce: the root receives the sum of every rank's tensor --------------------------------

const CollectiveCase kReduce{
    Collective::reduce,
    whole,
    whole,
    [](int, int p, std::int64_t, std::int64_t j) { return sum_over_ranks(p, j); },
    root_only,
    [](Comm& comm, Tensor& in, Tensor& out) { comm.reduce(in, out, kRoot); },
    [](MPI_Comm comm, Tensor& in, Tensor& out) {
      int rank = 0;
      MPI_Comm_rank(comm, &rank);
      MPI_Reduce(in.data(), rank == kRoot ? out.data() : nullptr, count(in), mpi_type(in), MPI_SUM,
                 kRoot, comm);
    }};

}  // namespace

double crafted_input(int r, std::int64_t i) {
  return static_cast<double>((3 * static_cast<std::int64_t>(r) + i) % 13 - 6);
}

const std::vector<CollectiveCase>& collective_cases() {
  static const std::vector<CollectiveCase> cases = {kAllReduce, kAllGather, kReduceScatter,
                                                    kBroadcast, kReduce};
  return cases;
}

const CollectiveCase& find_collective_case(std::string_view name) {
  std::string known;
  for (const CollectiveCase& c : collective_cases()) {
    if (collective_name(c.collective) == name) return c;
    known += (known.empty() ? "" : ", ") + std::string(collective_name(c.collective));
  }
  throw UsageError(fmt::format("unknown collective '{}' (known: {})", name, known));
}

}  // namespace tplab::bench
