#include "gpu_block_bench.hpp"

#include <fmt/format.h>

#include <functional>

#include "backend/cuda_backend.hpp"
#include "core/error.hpp"
#include "flops.hpp"
#include "harness.hpp"
#include "problem.hpp"
#include "rank_shards.hpp"
#include "registry/make_scheme.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab::bench {
namespace {

/// warm-up calls, then the median (and spread) of `repeats` calls, each timed with events; with
/// --trace, each call of the `series` (when named) is a step on the timeline.
Spread time_calls(Device& device, const GpuBenchConfig& c, const std::function<void()>& call,
                  const char* series = nullptr) {
  const auto marked = [&](int index, bool timed) {
    return TraceScope(
        series != nullptr ? device.trace() : nullptr,
        fmt::format("{} {}", series != nullptr ? series : "", index), "step",
        {{"series", series != nullptr ? series : ""}, {"index", index}, {"timed", timed}});
  };
  for (int i = 0; i < c.warmup; ++i) {
    const TraceScope step = marked(i, false);
    call();
  }
  std::vector<double> samples;
  for (int i = 0; i < c.repeats; ++i) {
    const TraceScope step = marked(c.warmup + i, true);
    samples.push_back(cuda::time_on_device(device, call));
  }
  return spread_of(samples);
}

/// A tensor of values in [-1, 1) from a cheap generator (the kernels' speed does not depend
/// on the values, only on their being finite).
Tensor random_tensor(Device& device, const Extents& extents, DType dtype, std::uint64_t seed) {
  std::vector<double> v(static_cast<std::size_t>(element_count(extents)));
  std::uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (double& x : v) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<double>(state >> 11) * 0x1p-52 - 1.0;
  }
  Tensor t = device.empty(extents, dtype);
  device.upload(v, t);
  return t;
}

}  // namespace

GpuBenchResult run_gpu_bench(Comm& world, Device& device, const GpuBenchConfig& c) {
  if (c.repeats < 1 || c.warmup < 0) {
    throw UsageError("--repeats must be at least 1 and --warmup at least 0");
  }
  check(world.size() == 1, "the GPU benchmark runs on one rank");
  GpuBenchResult r;
  r.config = c;
  r.device = device.description();
  const BlockShape& s = c.shape;
  const std::int64_t m = s.tokens(), h = s.h, bn = s.b * s.heads;
  const DType dt = c.dtype;
  const double size = static_cast<double>(dtype_size(dt));

  // ---- the block: the 1D scheme on one rank is the whole block on this GPU -------------------
  {
    const auto scheme = make_scheme("1d");
    scheme->validate(1, s);
    const auto placements = scheme->placements(1, s, Workload::block);
    const verify::HostArrays inputs =
        verify::make_inputs(s, c.seed, Workload::block, verify::Values::real);
    verify::RankShards shards = verify::shard_for_rank(device, inputs, placements, 0, dt);
    auto module =
        scheme->make_module(world, device, s, Workload::block, std::move(shards.parameters));
    r.step_seconds = time_calls(
        device, c,
        [&] {
          module->forward(shards.x);
          module->backward(shards.dy);
        },
        "step");
    r.step_flops = model::block_step_flops(s);
    r.step_tflops = r.step_flops / r.step_seconds.median / 1e12;
    // the module's memory (saved activations, parameters) goes here
  }

  // ---- the reference rates: a plain cuBLAS matmul and a device-to-device copy ----------------
  {
    Tensor a = random_tensor(device, {m, h}, dt, 1);
    Tensor w = random_tensor(device, {h, 4 * h}, dt, 2);
    Tensor out = device.empty({m, 4 * h}, dt);
    r.matmul_shape = fmt::format("[{}, {}] x [{}, {}]", m, h, h, 4 * h);
    // [m, h] x [h, 4h] -> [m, 4h], the MLP's first product
    r.matmul_seconds = time_calls(
        device, c, [&] { device.matmul(a, Transpose::no, w, Transpose::no, out, 1.0, 0.0); });
    r.matmul_tflops = 2.0 * static_cast<double>(m) * static_cast<double>(h) *
                      static_cast<double>(4 * h) / r.matmul_seconds.median / 1e12;
    r.step_of_matmul = r.step_tflops / r.matmul_tflops;
    Tensor copy = device.empty({m, 4 * h}, dt);
    r.copy_bytes = 2.0 * static_cast<double>(out.bytes());
    r.copy_seconds = time_calls(device, c, [&] { device.copy(out, copy); });
    r.copy_gb_per_s = r.copy_bytes / r.copy_seconds.median / 1e9;
  }

  // ---- each of tplab's kernels at the shapes the block gives it --------------------------------
  const auto kernel = [&](const std::string& name, const Extents& shape, double elements_moved,
                          const std::function<void()>& call) {
    KernelRate k;
    k.name = name;
    k.shape = to_string(shape);
    k.bytes = elements_moved * size;
    k.seconds = time_calls(device, c, call);
    k.gb_per_s = k.bytes / k.seconds.median / 1e9;
    k.of_copy = k.gb_per_s / r.copy_gb_per_s;
    r.kernels.push_back(k);
  };
  const double mh = static_cast<double>(m * h), m4h = 4.0 * mh;
  {
    Tensor x = random_tensor(device, {m, h}, dt, 3), y = random_tensor(device, {m, h}, dt, 4);
    Tensor z = device.empty({m, h}, dt);
    Tensor row = random_tensor(device, {m}, dt, 5), row2 = random_tensor(device, {m}, dt, 6);
    Tensor gamma = random_tensor(device, {h}, dt, 7), beta = random_tensor(device, {h}, dt, 8);
    Tensor sums = random_tensor(device, {m, 2}, dt, 9), rstd = device.empty({m}, dt);
    Tensor xhat = device.empty({m, h}, dt), dgamma = device.empty({h}, dt);
    Tensor dbeta = device.empty({h}, dt);
    Tensor heads = device.empty({bn, s.s, h / s.heads}, dt);
    kernel("add_inplace", {m, h}, 3 * mh, [&] { device.add_inplace(z, x); });
    kernel("scale", {m, h}, 2 * mh, [&] { device.scale(z, 1.0); });
    kernel("split_heads", {m, h}, 2 * mh, [&] { device.split_heads(x, s.b, s.heads, heads); });
    kernel("merge_heads", {m, h}, 2 * mh, [&] { device.merge_heads(heads, s.b, s.heads, z); });
    kernel("row_sum", {m, h}, mh, [&] { device.row_sum(x, row); });
    kernel("row_sum_squared_deviation", {m, h}, mh,
           [&] { device.row_sum_squared_deviation(x, row, row2); });
    device.fill(row2, 1.0);  // a variance of 1
    kernel("layernorm_apply", {m, h}, 3 * mh,
           [&] { device.layernorm_apply(x, row, row2, 1e-5, gamma, beta, xhat, rstd, z); });
    kernel("layernorm_backward_sums", {m, h}, 2 * mh,
           [&] { device.layernorm_backward_sums(y, gamma, xhat, sums); });
    kernel("layernorm_backward_input", {m, h}, 3 * mh,
           [&] { device.layernorm_backward_input(y, gamma, xhat, rstd, sums, h, z); });
    kernel("layernorm_backward_params", {m, h}, 2 * mh,
           [&] { device.layernorm_backward_params(y, xhat, dgamma, dbeta); });
    kernel("first_nonfinite", {m, h}, mh, [&] { device.first_nonfinite(x); });
  }
  {
    Tensor x = random_tensor(device, {m, 4 * h}, dt, 10), y = device.empty({m, 4 * h}, dt);
    Tensor dy = random_tensor(device, {m, 4 * h}, dt, 11);
    Tensor bias = random_tensor(device, {4 * h}, dt, 12), sum = device.empty({4 * h}, dt);
    kernel("add_bias", {m, 4 * h}, 2 * m4h, [&] { device.add_bias(y, bias); });
    kernel("column_sum", {m, 4 * h}, m4h, [&] { device.column_sum(dy, sum, 0.0); });
    kernel("gelu_forward", {m, 4 * h}, 2 * m4h, [&] { device.gelu_forward(x, y); });
    kernel("gelu_backward", {m, 4 * h}, 3 * m4h, [&] { device.gelu_backward(x, dy, y); });
  }
  {
    const double sq = static_cast<double>(bn) * static_cast<double>(s.s) * static_cast<double>(s.s);
    const double visible =
        static_cast<double>(bn) * static_cast<double>(s.s) * static_cast<double>(s.s + 1) / 2;
    Tensor scores = random_tensor(device, {bn, s.s, s.s}, dt, 13);
    Tensor probs = device.empty({bn, s.s, s.s}, dt);
    const double scale = 1.0 / std::sqrt(static_cast<double>(h / s.heads));
    // Both kernels read only the visible (causal) part of each row, and write the whole row.
    // Forward: the scores' visible part (a second pass over the row finds it in cache).
    kernel("causal_softmax_forward", {bn, s.s, s.s}, visible + sq,
           [&] { device.causal_softmax_forward(scores, scale, probs); });
    Tensor dscores = device.empty({bn, s.s, s.s}, dt);
    // Backward: the visible parts of probs and dprobs (before: credited with all of both).
    kernel("causal_softmax_backward", {bn, s.s, s.s}, 2 * visible + sq,
           [&] { device.causal_softmax_backward(probs, scores, scale, dscores); });
  }
  return r;
}

void print_gpu_bench(const GpuBenchResult& r, std::FILE* out) {
  const BlockShape& s = r.config.shape;
  fmt::print(out, "GPU benchmark on {}: {}, b={} s={} h={} heads={}, warm-up {}, median of {}\n",
             r.device, dtype_name(r.config.dtype), s.b, s.s, s.h, s.heads, r.config.warmup,
             r.config.repeats);
  fmt::print(out, "  block forward+backward  {:9.2f} ms  {:7.1f} TFLOP/s  ({:.1f} TFLOP a step)\n",
             r.step_seconds.median * 1e3, r.step_tflops, r.step_flops / 1e12);
  fmt::print(out, "  cuBLAS matmul {}  {:9.2f} ms  {:7.1f} TFLOP/s\n", r.matmul_shape,
             r.matmul_seconds.median * 1e3, r.matmul_tflops);
  fmt::print(out, "  block / matmul rate     {:9.0f}%  (goal >= 60%)\n", 100 * r.step_of_matmul);
  fmt::print(out, "  device-to-device copy   {:9.1f} GB/s  ({:.0f} MB read + written)\n",
             r.copy_gb_per_s, r.copy_bytes / 1e6);
  fmt::print(out, "\n  {:<27} {:<18} {:>10} {:>10} {:>8}\n", "kernel", "shape", "ms", "GB/s",
             "of copy");
  for (const KernelRate& k : r.kernels) {
    fmt::print(out, "  {:<27} {:<18} {:>10.3f} {:>10.1f} {:>7.0f}%{}\n", k.name, k.shape,
               k.seconds.median * 1e3, k.gb_per_s, 100 * k.of_copy,
               k.of_copy < 0.7 ? "  below the 70% goal" : "");
  }
}

nlohmann::json to_json(const GpuBenchResult& r) {
  const auto spread = [](const Spread& x) {
    return nlohmann::json{{"median", x.median}, {"min", x.min}, {"max", x.max}};
  };
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelRate& k : r.kernels) {
    kernels.push_back({{"name", k.name},
                       {"shape", k.shape},
                       {"bytes", k.bytes},
                       {"seconds", spread(k.seconds)},
                       {"gb_per_s", k.gb_per_s},
                       {"of_copy", k.of_copy}});
  }
  const BlockShape& s = r.config.shape;
  return {{"device", r.device},
          {"dtype", dtype_name(r.config.dtype)},
          {"shape", {{"b", s.b}, {"s", s.s}, {"h", s.h}, {"heads", s.heads}}},
          {"warmup", r.config.warmup},
          {"repeats", r.config.repeats},
          {"step_seconds", spread(r.step_seconds)},
          {"step_flops", r.step_flops},
          {"step_tflops", r.step_tflops},
          {"matmul_shape", r.matmul_shape},
          {"matmul_seconds", spread(r.matmul_seconds)},
          {"matmul_tflops", r.matmul_tflops},
          {"step_of_matmul", r.step_of_matmul},
          {"copy_bytes", r.copy_bytes},
          {"copy_seconds", spread(r.copy_seconds)},
          {"copy_gb_per_s", r.copy_gb_per_s},
          {"kernels", kernels}};
}

}  // namespace tplab::bench
