// Google Benchmark suite of each scheme's linear layers under mpiexec: forward + backward of
// one layer at the block's sizes, timed as the slowest rank's (mpi_benchmark.hpp).
//
//   mpiexec -n 4 build/bin/layers_bench --benchmark_out=layers.json
//
// 1D runs on any world whose size divides the layer's features, 2D (SUMMA) on a square number
// of ranks, 3D on a cube; the suite registers what this world can run.
#include <memory>
#include <random>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "grid/grid_1d.hpp"
#include "grid/grid_2d.hpp"
#include "grid/grid_3d.hpp"
#include "mpi_benchmark.hpp"
#include "tp1d/column_parallel_linear.hpp"
#include "tp1d/row_parallel_linear.hpp"
#include "tp2d/linear_2d.hpp"
#include "tp3d/input_gather_3d.hpp"
#include "tp3d/linear_3d.hpp"

namespace tplab::gbench {
namespace {

/// One process's world and device, shared by every benchmark of the suite.
struct World {
  CpuDevice device;
  std::unique_ptr<Comm> comm = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
};

World& world() {
  static World w;
  return w;
}

/// A tensor of uniform values in [-1, 1], the same on every rank for the same seed.
Tensor random_tensor(const Extents& extents, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> values(static_cast<std::size_t>(element_count(extents)));
  for (double& v : values) v = dist(gen);
  Tensor t = world().device.empty(extents, DType::f32);
  world().device.upload(values, t);
  return t;
}

/// The layer's global sizes from the benchmark's arguments: tokens m, in and out features.
struct LinearSize {
  std::int64_t m, in, out;
  explicit LinearSize(const benchmark::State& state)
      : m(state.range(0)), in(state.range(1)), out(state.range(2)) {}
};

/// FLOPs of one layer's forward X W and backward dY W^T and X^T dY over the whole world.
double layer_flops(const LinearSize& s) {
  return 6.0 * static_cast<double>(s.m * s.in * s.out);
}

// ---- 1D: Megatron's column- and row-parallel linears ----------------------------------------

void column_parallel_linear(benchmark::State& state) {
  const LinearSize s(state);
  const int t = world().comm->size();
  Grid1D grid = Grid1D::build(*world().comm);
  tp1d::ColumnParallelLinear layer(world().device, random_tensor({s.in, s.out / t}, 1),
                                   random_tensor({s.out / t}, 2));
  const Tensor x = random_tensor({s.m, s.in}, 3);        // X replicated
  const Tensor dy = random_tensor({s.m, s.out / t}, 4);  // dY_r: this rank's columns
  time_collectively(state, *world().comm, layer_flops(s), [&] {
    benchmark::DoNotOptimize(layer.apply(x));
    layer.weight_grads(x, dy);
    Tensor partial_dx = layer.input_grad(dy);
    grid.tp->all_reduce(partial_dx);  // operator f's backward, as the block issues it
  });
}

void row_parallel_linear(benchmark::State& state) {
  const LinearSize s(state);
  const int t = world().comm->size();
  Grid1D grid = Grid1D::build(*world().comm);
  tp1d::RowParallelLinear layer(world().device, *grid.tp, random_tensor({s.in / t, s.out}, 1),
                                random_tensor({s.out}, 2));
  const Tensor x = random_tensor({s.m, s.in / t}, 3);  // X_r: this rank's input columns
  const Tensor dy = random_tensor({s.m, s.out}, 4);    // dY replicated
  time_collectively(state, *world().comm, layer_flops(s), [&] {
    benchmark::DoNotOptimize(layer.forward(x));
    benchmark::DoNotOptimize(layer.backward(dy));
  });
}

// ---- 2D: SUMMA on a q x q mesh ---------------------------------------------------------------

void linear_2d(benchmark::State& state) {
  const LinearSize s(state);
  Grid2D grid = Grid2D::build(*world().comm);
  const std::int64_t q = grid.q;
  tp2d::Linear2D layer(world().device, grid, random_tensor({s.in / q, s.out / q}, 1),
                       random_tensor({s.out / q}, 2));
  const Tensor x = random_tensor({s.m / q, s.in / q}, 3);
  const Tensor dy = random_tensor({s.m / q, s.out / q}, 4);
  time_collectively(state, *world().comm, layer_flops(s), [&] {
    benchmark::DoNotOptimize(layer.forward(x));
    benchmark::DoNotOptimize(layer.backward(dy));
  });
}

// ---- 3D: gather X and W, multiply, reduce-scatter Y on a q x q x q cube ----------------------

void linear_3d(benchmark::State& state) {
  const LinearSize s(state);
  Grid3D grid = Grid3D::build(*world().comm);
  const std::int64_t q = grid.q;
  const auto roles = tp3d::kReadsBlockLayout;
  tp3d::InputGather3D input(world().device, grid, roles);
  tp3d::Linear3D layer(world().device, grid, roles, random_tensor({s.in / (q * q), s.out / q}, 1),
                       random_tensor({s.out / q}, 2));
  const Tensor x = random_tensor({s.m / (q * q), s.in / q}, 3);
  const Tensor dy = random_tensor({s.m / (q * q), s.out / q}, 4);
  time_collectively(state, *world().comm, layer_flops(s), [&] {
    benchmark::DoNotOptimize(layer.forward(input.forward(x)));
    benchmark::DoNotOptimize(input.backward(layer.backward(dy, input.gathered_for_backward())));
  });
}

/// The block's fc1 (h -> 4h) and fc2 (4h -> h) at b=4 s=256 h=1024 (m = 1024 tokens), and a
/// small size for quick runs (--benchmark_filter=m:64/).
void linear_sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"m", "in", "out"});
  b->Args({1024, 1024, 4096});
  b->Args({1024, 4096, 1024});
  b->Args({64, 64, 256});
  b->UseManualTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

void register_benchmarks() {
  const int p = world().comm->size();
  if (256 % p == 0) {  // every size's features split evenly over p ranks
    benchmark::RegisterBenchmark("1d/ColumnParallelLinear", column_parallel_linear)
        ->Apply(linear_sizes);
    benchmark::RegisterBenchmark("1d/RowParallelLinear", row_parallel_linear)->Apply(linear_sizes);
  }
  if (const int q = square_root(p); q > 0 && 64 % q == 0) {
    benchmark::RegisterBenchmark("2d/Linear2D", linear_2d)->Apply(linear_sizes);
  }
  if (const int q = cube_side(p); q > 0 && 64 % (q * q) == 0) {
    benchmark::RegisterBenchmark("3d/Linear3D", linear_3d)->Apply(linear_sizes);
  }
}

}  // namespace tplab::gbench
