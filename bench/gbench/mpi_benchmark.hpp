/// @file
/// What a Google Benchmark suite under mpiexec provides to mpi_benchmark_main.cpp, and the
/// timing every such benchmark uses.
#pragma once

#include <benchmark/benchmark.h>
#include <mpi.h>

#include <chrono>

#include "comm/comm.hpp"

namespace tplab::gbench {

/// Registers the suite's benchmarks for this world (some need a square or a cube of ranks).
/// Called on every rank after MPI has started, so every rank registers the same list.
void register_benchmarks();

/// Times `body` once per benchmark iteration as a training step is timed: all ranks start
/// together (barrier), and the iteration's time is the slowest rank's (all-reduce max), so
/// that every rank reports, and Google Benchmark decides on, the same number. Also reports
/// the slowest rank's time inside collectives per iteration ("comm_s") and, given the FLOPs
/// of one iteration over all ranks, "FLOP/s" over those times (Google Benchmark's own rate
/// counters divide by this process's CPU time, which is not the slowest rank's time).
template <typename F>
void time_collectively(benchmark::State& state, Comm& world, double flops, F&& body) {
  double seconds_total = 0, comm_seconds = 0;
  for (auto _ : state) {
    world.barrier();
    world.counters().reset();
    const auto start = std::chrono::steady_clock::now();
    body();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double slowest[2] = {seconds, world.counters().total_seconds()};
    MPI_Allreduce(MPI_IN_PLACE, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    state.SetIterationTime(slowest[0]);
    seconds_total += slowest[0];
    comm_seconds += slowest[1];
  }
  state.counters["comm_s"] = benchmark::Counter(comm_seconds, benchmark::Counter::kAvgIterations);
  state.counters["FLOP/s"] =
      benchmark::Counter(flops * static_cast<double>(state.iterations()) / seconds_total);
}

}  // namespace tplab::gbench
