// main() for Google Benchmark suites that run under mpiexec. Every rank runs every benchmark
// (each iteration is collective); rank 0 alone prints and writes --benchmark_out. Benchmarks
// time themselves with manual time set to the slowest rank's, so every rank sees the same
// times and Google Benchmark picks the same iteration counts on every rank.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <string_view>
#include <vector>

#include "mpi_benchmark.hpp"

namespace {

/// Swallows every report: ranks other than 0 run the benchmarks but say nothing.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Only rank 0 writes the output file: drop --benchmark_out* elsewhere.
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (rank != 0 && std::string_view(argv[i]).starts_with("--benchmark_out")) continue;
    args.push_back(argv[i]);
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) {
    MPI_Finalize();
    return 2;
  }
  tplab::gbench::register_benchmarks();
  if (rank == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    SilentReporter silent;
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
