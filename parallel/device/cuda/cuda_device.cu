#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/bf16.hpp"
#include "core/error.hpp"
#include "device/cuda/cuda_checks.hpp"
#include "device/cuda/cuda_device.hpp"
#include "device/cuda/cuda_state.cuh"
#include "device/cuda/cuda_status.cuh"
#include "device/cuda/device_query.hpp"
#include "device/cuda/gpu_sharing.hpp"
#include "device/cuda/kernel_common.cuh"
#include "device/cuda/launch_helpers.cuh"
#include "device/cuda/launch_plan.hpp"
#include "device/cuda/launch_sync.hpp"
#include "device/ops/cuda_ops.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab {

// ---- kernels of memory and read-back ------------------------------------------------------------

namespace cuda {

/// x[i] = value.
template <typename T>
__global__ void fill_kernel(T* x, std::int64_t n, Acc<T> value) {
  const T v = narrow<T>(value);
  for_each_element(
      n, [](std::int64_t) { return 0; }, [&](std::int64_t i, int) { x[i] = v; });
}

/// The smallest index i with x[i] NaN or Inf, by atomicMin into *first (preset to the
/// largest value).
template <typename T>
__global__ void first_nonfinite_kernel(const T* x, std::int64_t n, unsigned long long* first) {
  for_each_element(
      n, [&](std::int64_t i) { return widen(x[i]); },
      [&](std::int64_t i, Acc<T> v) {
        if (!isfinite(v)) atomicMin(first, static_cast<unsigned long long>(i));
      });
}

}  // namespace cuda

using cuda::check_blas;
using cuda::check_cuda;
using cuda::dispatch;
using cuda::grid_of;
using cuda::typed;

// ---- set-up -------------------------------------------------------------------------------------

int CudaDevice::visible_devices() {
  cuda::DeviceQuery q;
  const cudaError_t status = cudaGetDeviceCount(&q.count);
  cudaGetLastError();  // clear the sticky error of a failed query
  switch (status) {
    case cudaSuccess:
      q.status = cuda::DeviceQuery::Status::success;
      break;
    case cudaErrorNoDevice:
      q.status = cuda::DeviceQuery::Status::no_device;
      break;
    case cudaErrorInsufficientDriver:
      q.status = cuda::DeviceQuery::Status::insufficient_driver;
      break;
    default:
      q.status = cuda::DeviceQuery::Status::other;
      q.error = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  }
  if (cuda::found_gpu(q)) return q.count;
  cudaDriverGetVersion(&q.driver_version);  // 0 when no driver is installed
  cudaRuntimeGetVersion(&q.runtime_version);
  throw cuda::unusable_device_error(q);
}

namespace {

/// Binds the calling thread to GPU `ordinal` and makes its stream and cuBLAS handle; sets how
/// much freed memory the pool keeps for `ranks_sharing` processes on this GPU.
std::shared_ptr<CudaDevice::State> open_state(int ordinal, int ranks_sharing) {
  auto state = std::make_shared<CudaDevice::State>();
  const int count = CudaDevice::visible_devices();
  if (ordinal < 0 || ordinal >= count) {
    throw NoDeviceError("no CUDA device " + std::to_string(ordinal) + " (this process sees " +
                        std::to_string(count) + ")");
  }
  state->ordinal = ordinal;
  state->sync_after_launch = cuda::sync_after_launch_requested();
  check_cuda(cudaSetDevice(ordinal), "cudaSetDevice");
  check_cuda(cudaGetDeviceProperties(&state->properties, ordinal), "cudaGetDeviceProperties");
  check_cuda(cudaStreamCreateWithFlags(&state->stream, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags");
  check_blas(cublasCreate(&state->blas), "cublasCreate");
  check_blas(cublasSetStream(state->blas, state->stream), "cublasSetStream");
  // No reduced-precision reductions: with a bf16 output, cuBLAS may otherwise add the partial
  // sums of a split-k GEMM in bf16, and the bf16 tolerances assume every sum is in f32.
  check_blas(cublasSetMathMode(state->blas, static_cast<cublasMath_t>(
                                                CUBLAS_DEFAULT_MATH |
                                                CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
             "cublasSetMathMode");
  // Freed memory stays in the stream-ordered pool up to the threshold of gpu_sharing.hpp: all
  // of it for a rank alone on its GPU, an equal share for ranks that share one.
  cudaMemPool_t pool = nullptr;
  check_cuda(cudaDeviceGetDefaultMemPool(&pool, ordinal), "cudaDeviceGetDefaultMemPool");
  std::uint64_t keep =
      cuda::pool_release_threshold(state->properties.totalGlobalMem, ranks_sharing);
  check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
             "cudaMemPoolSetAttribute");
  return state;
}

/// The CUDA object of every family, each on the device's stream (device/ops/cuda_ops.hpp).
DeviceFamilies cuda_families(const std::shared_ptr<CudaDevice::State>& state) {
  return DeviceFamilies{
      .gemm = cuda::make_gemm_ops(state),
      .elementwise = cuda::make_elementwise_ops(state),
      .gelu = cuda::make_gelu_ops(state),
      .softmax = cuda::make_softmax_ops(state),
      .heads = cuda::make_heads_ops(state),
      .layernorm = cuda::make_layernorm_ops(state),
      .vocabulary = cuda::make_vocabulary_ops(state),
      .optimizer = cuda::make_optimizer_ops(state),
  };
}

}  // namespace

CudaDevice::CudaDevice(int ordinal, int ranks_sharing)
    : CudaDevice(open_state(ordinal, ranks_sharing)) {}

CudaDevice::CudaDevice(std::shared_ptr<State> state)
    : Device(cuda_families(state)), state_(std::move(state)) {}

CudaDevice::~CudaDevice() = default;

int CudaDevice::ordinal() const {
  return state_->ordinal;
}

std::string CudaDevice::name() const {
  return state_->properties.name;
}

void* CudaDevice::stream() const {
  return state_->stream;
}

std::string CudaDevice::description() const {
  int blas_version = 0;
  cublasGetVersion(state_->blas, &blas_version);
  return "cuda (" + name() + ", sm_" + std::to_string(state_->properties.major) +
         std::to_string(state_->properties.minor) + ", cuBLAS " + std::to_string(blas_version) +
         ")";
}

void CudaDevice::synchronize() {
  check_cuda(cudaStreamSynchronize(state_->stream), "cudaStreamSynchronize");
}

double CudaDevice::time_on_stream(const std::function<void()>& enqueue) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  float ms = 0;
  try {
    check_cuda(cudaEventRecord(start, state_->stream), "cudaEventRecord");
    enqueue();
    check_cuda(cudaEventRecord(stop, state_->stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms * 1e-3;
}

// ---- tracing ----------------------------------------------------------------------------------

/// The event every traced operation of one trace is read against, and the trace's host time when
/// the GPU reached it. Each span holds its own, so a later trace (or a restarted one) never moves
/// the spans of an earlier one.
struct CudaDevice::TraceOrigin {
  cudaEvent_t event = nullptr;
  double host_us = 0;
  ~TraceOrigin() {
    if (event != nullptr) cudaEventDestroy(event);
  }
};

namespace {

/// Two events on the stream around one operation: its begin against the trace's origin, its
/// length between the two (so that a float's 7 digits of milliseconds since the origin do not
/// cut a short kernel's duration in a long trace).
class StreamSpan final : public DeferredSpan {
 public:
  StreamSpan(std::shared_ptr<const CudaDevice::TraceOrigin> origin, cudaEvent_t start,
             cudaEvent_t stop)
      : origin_(std::move(origin)), start_(start), stop_(stop) {}
  ~StreamSpan() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  StreamSpan(const StreamSpan&) = delete;
  StreamSpan& operator=(const StreamSpan&) = delete;

  std::pair<double, double> microseconds() override {
    cuda::check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float since_origin_ms = 0, length_ms = 0;
    cuda::check_cuda(cudaEventElapsedTime(&since_origin_ms, origin_->event, start_),
                     "cudaEventElapsedTime");
    cuda::check_cuda(cudaEventElapsedTime(&length_ms, start_, stop_), "cudaEventElapsedTime");
    const double begin = origin_->host_us + 1e3 * since_origin_ms;
    return {begin, begin + 1e3 * length_ms};
  }

 private:
  std::shared_ptr<const CudaDevice::TraceOrigin> origin_;
  cudaEvent_t start_, stop_;
};

/// The start event and the NVTX range of one operation; finish() closes both. Its calls that can
/// fail come before the range is opened, and finish() throws nothing: it runs in a destructor.
class StreamOpTimer final : public Device::OpTimer {
 public:
  StreamOpTimer(cudaStream_t stream, std::shared_ptr<const CudaDevice::TraceOrigin> origin,
                const char* name)
      : stream_(stream), origin_(std::move(origin)) {
    cuda::check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    cuda::check_cuda(cudaEventRecord(start_, stream_), "cudaEventRecord");
    nvtxRangePushA(name);
  }
  std::unique_ptr<DeferredSpan> finish() override {
    nvtxRangePop();
    ranged_ = false;
    cudaEvent_t stop = nullptr;
    if (cudaEventCreate(&stop) != cudaSuccess) return nullptr;
    if (cudaEventRecord(stop, stream_) != cudaSuccess) {
      cudaEventDestroy(stop);
      return nullptr;
    }
    return std::make_unique<StreamSpan>(origin_, std::exchange(start_, nullptr), stop);
  }
  ~StreamOpTimer() override {
    if (ranged_) nvtxRangePop();
    if (start_ != nullptr) cudaEventDestroy(start_);
  }
  StreamOpTimer(const StreamOpTimer&) = delete;
  StreamOpTimer& operator=(const StreamOpTimer&) = delete;

 private:
  cudaStream_t stream_;
  std::shared_ptr<const CudaDevice::TraceOrigin> origin_;
  cudaEvent_t start_ = nullptr;
  bool ranged_ = true;
};

}  // namespace

std::unique_ptr<Device::OpTimer> CudaDevice::start_op_timer(const char* name,
                                                            TraceRecorder& trace) {
  if (!trace_origin_ || traced_epoch_ != trace.epoch()) {
    // The origin: an event reached with nothing queued before it, at a known host time.
    auto origin = std::make_shared<TraceOrigin>();
    check_cuda(cudaStreamSynchronize(state_->stream), "cudaStreamSynchronize");
    check_cuda(cudaEventCreate(&origin->event), "cudaEventCreate");
    check_cuda(cudaEventRecord(origin->event, state_->stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(origin->event), "cudaEventSynchronize");
    origin->host_us = trace.now_us();
    trace_origin_ = std::move(origin);
    traced_epoch_ = trace.epoch();
  }
  return std::make_unique<StreamOpTimer>(state_->stream, trace_origin_, name);
}

// ---- memory and read-back -----------------------------------------------------------------------

Tensor CudaDevice::empty(const Extents& extents, DType dtype) {
  // At least 256 bytes, so that an empty tensor still has an address of its own.
  const std::size_t elements = static_cast<std::size_t>(element_count(extents)) * dtype_size(dtype);
  const std::size_t bytes = std::max<std::size_t>(256, elements);
  void* raw = nullptr;
  check_cuda(cudaMallocAsync(&raw, bytes, state_->stream), "cudaMallocAsync");
  // Freed on the same stream, after every operation issued before the last handle went away.
  auto free_on_stream = [state = state_](std::byte* p) { cudaFreeAsync(p, state->stream); };
  return Tensor(extents, dtype, DeviceKind::cuda,
                allocations().track(static_cast<std::byte*>(raw), elements, free_on_stream));
}

void CudaDevice::fill_values(Tensor& x, double value) {
  cuda::require_on_device("fill", x);
  const cuda::Launch l =
      cuda::elementwise_launch(x.numel(), state_->properties.multiProcessorCount);
  if (l.blocks == 0) return;
  dispatch(x.dtype(), [&]<typename T>() {
    cuda::fill_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(x), x.numel(), static_cast<cuda::Acc<T>>(value));
  });
  state_->after_launch("fill_kernel");
}

void CudaDevice::copy_values(const Tensor& src, Tensor& dst) {
  cuda::require_same("copy", src, dst);
  if (src.bytes() == 0) return;
  check_cuda(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice,
                             state_->stream),
             "cudaMemcpyAsync (device to device)");
}

void CudaDevice::upload_values(std::span<const double> host, Tensor& dst) {
  cuda::require_host_size("upload", host.size(), dst);
  std::vector<std::byte> staged(dst.bytes());
  switch (dst.dtype()) {
    case DType::f64:
      std::memcpy(staged.data(), host.data(), dst.bytes());
      break;
    case DType::f32:
      for (std::size_t i = 0; i < host.size(); ++i) {
        const float v = static_cast<float>(host[i]);
        std::memcpy(staged.data() + 4 * i, &v, 4);
      }
      break;
    case DType::bf16:
      for (std::size_t i = 0; i < host.size(); ++i) {
        const Bf16Bits v = bf16_from_double(host[i]);
        std::memcpy(staged.data() + 2 * i, &v, 2);
      }
      break;
  }
  if (staged.empty()) return;
  check_cuda(cudaMemcpyAsync(dst.data(), staged.data(), staged.size(), cudaMemcpyHostToDevice,
                             state_->stream),
             "cudaMemcpyAsync (host to device)");
  synchronize();  // `staged` ends here
}

void CudaDevice::download_values(const Tensor& src, std::span<double> host) {
  cuda::require_host_size("download", host.size(), src);
  std::vector<std::byte> staged(src.bytes());
  if (staged.empty()) return;
  check_cuda(cudaMemcpyAsync(staged.data(), src.data(), staged.size(), cudaMemcpyDeviceToHost,
                             state_->stream),
             "cudaMemcpyAsync (device to host)");
  synchronize();
  switch (src.dtype()) {
    case DType::f64:
      std::memcpy(host.data(), staged.data(), staged.size());
      break;
    case DType::f32:
      for (std::size_t i = 0; i < host.size(); ++i) {
        float v = 0;
        std::memcpy(&v, staged.data() + 4 * i, 4);
        host[i] = v;
      }
      break;
    case DType::bf16:
      for (std::size_t i = 0; i < host.size(); ++i) {
        Bf16Bits v = 0;
        std::memcpy(&v, staged.data() + 2 * i, 2);
        host[i] = float_from_bf16(v);
      }
      break;
  }
}

std::int64_t CudaDevice::find_nonfinite(const Tensor& x) {
  cuda::require_on_device("first_nonfinite", x);
  const cuda::Launch l =
      cuda::elementwise_launch(x.numel(), state_->properties.multiProcessorCount);
  if (l.blocks == 0) return -1;
  constexpr unsigned long long kNone = std::numeric_limits<unsigned long long>::max();
  void* raw = nullptr;
  check_cuda(cudaMallocAsync(&raw, sizeof(unsigned long long), state_->stream), "cudaMallocAsync");
  auto* first = static_cast<unsigned long long*>(raw);
  unsigned long long found = kNone;
  try {
    // every byte 0xff: the largest index, kNone
    check_cuda(cudaMemsetAsync(first, 0xff, sizeof found, state_->stream), "cudaMemsetAsync");
    dispatch(x.dtype(), [&]<typename T>() {
      cuda::first_nonfinite_kernel<T>
          <<<grid_of(l), l.threads, 0, state_->stream>>>(typed<T>(x), x.numel(), first);
    });
    state_->after_launch("first_nonfinite_kernel");
    check_cuda(cudaMemcpyAsync(&found, first, sizeof found, cudaMemcpyDeviceToHost, state_->stream),
               "cudaMemcpyAsync (first_nonfinite)");
    synchronize();  // `found` is read below
  } catch (...) {
    cudaFreeAsync(raw, state_->stream);
    throw;
  }
  cudaFreeAsync(raw, state_->stream);
  return found == kNone ? -1 : static_cast<std::int64_t>(found);
}

}  // namespace tplab
