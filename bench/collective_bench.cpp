#include "collective_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "process_resources.hpp"

namespace tplab::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Samples and calls per sample shrink as messages grow, so that a sweep up to 256 MiB takes
// seconds, not minutes: small messages are timed in batches of back-to-back calls (one call
// is too short for the clock), large ones one call per sample and fewer samples.
constexpr std::int64_t kBatchBytes = std::int64_t{1} << 20;
constexpr int kMaxCallsPerSample = 64;
constexpr std::int64_t kSweepBytes = std::int64_t{256} << 20;
constexpr int kMinSamples = 10;
constexpr int kMaxSamples = 30;

/// t[i] = value(i) for every element, in t's dtype.
template <typename F>
void fill(Tensor& t, F&& value) {
  const auto write = [&]<typename T>(T* data) {
    for (std::int64_t i = 0; i < t.numel(); ++i) data[i] = static_cast<T>(value(i));
  };
  if (t.dtype() == DType::f64) write(t.data_as<double>());
  if (t.dtype() == DType::f32) write(t.data_as<float>());
}

/// Elements of t that differ from expected(i).
template <typename F>
std::int64_t count_wrong(const Tensor& t, F&& expected) {
  std::int64_t wrong = 0;
  const auto scan = [&]<typename T>(const T* data) {
    for (std::int64_t i = 0; i < t.numel(); ++i) {
      wrong += static_cast<double>(data[i]) != expected(i) ? 1 : 0;
    }
  };
  if (t.dtype() == DType::f64) scan(t.data_as<double>());
  if (t.dtype() == DType::f32) scan(t.data_as<float>());
  return wrong;
}

/// The buffers of one collective, allocated once for its largest size; each size uses the
/// leading part, so pages touched at one size are warm for the next.
struct Buffers {
  Tensor input, output;
  Tensor in(std::int64_t n) const { return input.slice_rows(0, n); }
  Tensor out(std::int64_t n) const { return output.slice_rows(0, n); }
};

/// Per-call seconds of `samples` samples of `calls` back-to-back calls, the slowest rank's.
/// The two paths alternate which goes first, so that neither always meets a cold cache.
void time_both(MPI_Comm comm, int samples, int calls, const std::function<void()>& tplab_call,
               const std::function<void()>& mpi_call, std::vector<double>& tplab_seconds,
               std::vector<double>& mpi_seconds) {
  tplab_seconds.assign(static_cast<std::size_t>(samples), 0.0);
  mpi_seconds.assign(static_cast<std::size_t>(samples), 0.0);
  const auto time = [&](const std::function<void()>& call) {
    MPI_Barrier(comm);
    const auto start = Clock::now();
    for (int c = 0; c < calls; ++c) call();
    return std::chrono::duration<double>(Clock::now() - start).count() / calls;
  };
  for (int s = 0; s < samples; ++s) {
    const auto i = static_cast<std::size_t>(s);
    if (s % 2 == 0) {
      tplab_seconds[i] = time(tplab_call);
      mpi_seconds[i] = time(mpi_call);
    } else {
      mpi_seconds[i] = time(mpi_call);
      tplab_seconds[i] = time(tplab_call);
    }
  }
  // The bookkeeping goes straight to MPI, so that it never shows in tplab's counters.
  MPI_Allreduce(MPI_IN_PLACE, tplab_seconds.data(), samples, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, mpi_seconds.data(), samples, MPI_DOUBLE, MPI_MAX, comm);
}

CollectiveRow measure(Comm& comm, MPI_Comm raw, const CollectiveCase& c, Buffers& buffers,
                      std::int64_t n, const CollectiveBenchConfig& config) {
  const int p = comm.size(), r = comm.rank();
  Tensor in = buffers.in(c.input_count(n, p));
  Tensor out = c.output_count(n, p) == 0 ? in : buffers.out(c.output_count(n, p));

  // The check: crafted integer inputs, one call through tplab, every element compared exactly.
  fill(in, [&](std::int64_t i) { return crafted_input(r, i); });
  c.through_tplab(comm, in, out);
  std::int64_t wrong =
      c.checked(r) ? count_wrong(out, [&](std::int64_t j) { return c.expected(r, p, n, j); }) : 0;
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_SUM, raw);

  // The timing, on zeros: the values do not change the speed of a sum, and repeated in-place
  // sums of zeros stay finite however many calls there are.
  fill(in, [](std::int64_t) { return 0.0; });
  if (out.data() != in.data()) fill(out, [](std::int64_t) { return 0.0; });
  const std::int64_t bytes = n * static_cast<std::int64_t>(dtype_size(config.dtype));
  const int calls =
      static_cast<int>(std::clamp<std::int64_t>(kBatchBytes / bytes, 1, kMaxCallsPerSample));
  const int samples = static_cast<int>(
      std::clamp<std::int64_t>(kSweepBytes / (bytes * calls), kMinSamples, kMaxSamples));
  const auto through_tplab = [&] { c.through_tplab(comm, in, out); };
  const auto through_mpi = [&] { c.through_mpi(raw, in, out); };
  std::vector<double> tplab_seconds, mpi_seconds;
  if (config.warmup > 0) {
    time_both(raw, config.warmup, calls, through_tplab, through_mpi, tplab_seconds, mpi_seconds);
  }
  time_both(raw, samples, calls, through_tplab, through_mpi, tplab_seconds, mpi_seconds);

  CollectiveRow row;
  row.collective = c.collective;
  row.bytes = bytes;
  row.count = n;
  row.dtype = config.dtype;
  row.ranks = p;
  row.seconds = spread_of(tplab_seconds);
  row.raw_seconds = spread_of(mpi_seconds);
  std::vector<double> ratios;
  for (std::size_t i = 0; i < tplab_seconds.size(); ++i) {
    ratios.push_back(tplab_seconds[i] / mpi_seconds[i]);
  }
  row.overhead = spread_of(ratios).median - 1;
  row.algbw = static_cast<double>(bytes) / row.seconds.median / 1e9;
  row.busbw = row.algbw * bus_factor(c.collective, p);
  row.wrong = wrong;
  row.samples = samples;
  row.calls_per_sample = calls;
  return row;
}

}  // namespace

std::vector<std::int64_t> message_sizes(std::int64_t min_bytes, std::int64_t max_bytes,
                                        DType dtype) {
  constexpr std::int64_t kMaxBytes = std::int64_t{1} << 30;
  const auto element = static_cast<std::int64_t>(dtype_size(dtype));
  if (min_bytes < element) {
    throw UsageError(
        fmt::format("--min-bytes {}: a message holds at least one {} element ({} bytes)", min_bytes,
                    dtype_name(dtype), element));
  }
  if (max_bytes > kMaxBytes) {
    throw UsageError(
        fmt::format("--max-bytes {}: at most 1 GiB ({} bytes) per message", max_bytes, kMaxBytes));
  }
  if (min_bytes > max_bytes) {
    throw UsageError(
        fmt::format("--min-bytes {} is larger than --max-bytes {}", min_bytes, max_bytes));
  }
  std::vector<std::int64_t> sizes;
  for (std::int64_t b = min_bytes; b <= max_bytes; b *= 2) sizes.push_back(b);
  return sizes;
}

std::int64_t element_count_for(Collective collective, std::int64_t bytes, DType dtype, int ranks) {
  const std::int64_t n = bytes / static_cast<std::int64_t>(dtype_size(dtype));
  if (collective != Collective::all_gather && collective != Collective::reduce_scatter) return n;
  return std::max<std::int64_t>(ranks, n / ranks * ranks);
}

double collective_bench_bytes_per_rank(const CollectiveBenchConfig& config, int ranks) {
  double largest = 0;
  for (const auto& name : config.collectives) {
    const CollectiveCase& c = find_collective_case(name);
    const std::int64_t n = element_count_for(c.collective, config.max_bytes, config.dtype, ranks);
    largest =
        std::max(largest, static_cast<double>(c.input_count(n, ranks) + c.output_count(n, ranks)));
  }
  return largest * static_cast<double>(dtype_size(config.dtype));
}

std::vector<CollectiveRow> run_collective_bench(
    Comm& comm, MPI_Comm raw, Device& device, const CollectiveBenchConfig& config,
    const std::function<void(const CollectiveRow&)>& on_row) {
  if (config.dtype != DType::f32 && config.dtype != DType::f64) {
    throw UsageError("bench comm moves f32 or f64 (MpiComm's types)");
  }
  if (config.warmup < 0) throw UsageError("--warmup must be at least 0");
  std::vector<const CollectiveCase*> cases;
  for (const auto& name : config.collectives) cases.push_back(&find_collective_case(name));
  const std::vector<std::int64_t> sizes =
      message_sizes(config.min_bytes, config.max_bytes, config.dtype);
  const int p = comm.size();

  std::vector<CollectiveRow> rows;
  for (const CollectiveCase* c : cases) {
    const std::int64_t largest = element_count_for(c->collective, sizes.back(), config.dtype, p);
    Buffers buffers;
    buffers.input = device.empty({c->input_count(largest, p)}, config.dtype);
    if (const std::int64_t out = c->output_count(largest, p); out > 0) {
      buffers.output = device.empty({out}, config.dtype);
    }
    for (std::int64_t bytes : sizes) {
      const std::int64_t n = element_count_for(c->collective, bytes, config.dtype, p);
      rows.push_back(measure(comm, raw, *c, buffers, n, config));
      on_row(rows.back());
    }
  }
  return rows;
}

nlohmann::json to_json(const CollectiveRow& r) {
  return {{"collective", collective_name(r.collective)},
          {"bytes", r.bytes},
          {"count", r.count},
          {"dtype", dtype_name(r.dtype)},
          {"ranks", r.ranks},
          {"time_us", r.seconds.median * 1e6},
          {"time_us_min", r.seconds.min * 1e6},
          {"time_us_max", r.seconds.max * 1e6},
          {"algbw", r.algbw},
          {"busbw", r.busbw},
          {"wrong", r.wrong},
          {"raw_time_us", r.raw_seconds.median * 1e6},
          {"raw_time_us_min", r.raw_seconds.min * 1e6},
          {"raw_time_us_max", r.raw_seconds.max * 1e6},
          {"overhead", r.overhead},
          {"samples", r.samples},
          {"calls_per_sample", r.calls_per_sample},
          {"oversubscribed", oversubscribed(r.ranks)}};
}

}  // namespace tplab::bench
