#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/bf16.hpp"
#include "core/error.hpp"
#include "device/cuda/cuda_checks.hpp"
#include "device/cuda/cuda_device.hpp"
#include "device/cuda/cuda_kernels.cuh"
#include "device/cuda/cuda_status.cuh"
#include "device/cuda/device_query.hpp"
#include "device/cuda/gpu_sharing.hpp"
#include "device/cuda/launch_plan.hpp"
#include "device/cuda/launch_sync.hpp"

namespace tplab {

struct CudaDevice::State {
  int ordinal = 0;
  cudaDeviceProp properties{};
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  bool sync_after_launch = false;  // TPLAB_CUDA_SYNC=1

  /// Checks the kernel or cuBLAS call just issued; with TPLAB_CUDA_SYNC=1 waits for it too.
  void after_launch(const std::string& work) const {
    cuda::check_launch(work, stream, sync_after_launch);
  }

  ~State() {
    // Errors here cannot be reported (a destructor); the process is ending or the device is.
    if (stream != nullptr) cudaStreamSynchronize(stream);
    if (blas != nullptr) cublasDestroy(blas);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

namespace {

using cuda::check_cuda;

/// Calls f.template operator()<T>() with the storage type of `dtype`.
template <typename F>
void dispatch(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f64:
      f.template operator()<double>();
      return;
    case DType::f32:
      f.template operator()<float>();
      return;
    case DType::bf16:
      f.template operator()<__nv_bfloat16>();
      return;
  }
  throw InternalError("CudaDevice: unknown dtype");
}

/// cuBLAS's name of a storage type.
cudaDataType_t blas_type(DType dtype) {
  switch (dtype) {
    case DType::f64:
      return CUDA_R_64F;
    case DType::f32:
      return CUDA_R_32F;
    case DType::bf16:
      return CUDA_R_16BF;
  }
  throw InternalError("CudaDevice: unknown dtype");
}

void check_blas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw InternalError(std::string(call) + " failed: " + cublasGetStatusString(status));
}

template <typename T>
T* typed(Tensor& t) {
  return static_cast<T*>(t.data());
}
template <typename T>
const T* typed(const Tensor& t) {
  return static_cast<const T*>(t.data());
}

dim3 grid_of(const cuda::Launch& l) {
  return dim3(static_cast<unsigned>(l.blocks));
}

/// Host indices (token ids, targets) copied to the device for one call. The copy from pageable
/// memory returns once the values are staged, so the host span may go away; the device copy is
/// freed on the stream after the kernels that read it.
class DeviceIndices {
 public:
  DeviceIndices(std::span<const std::int64_t> host, cudaStream_t stream) : stream_(stream) {
    if (host.empty()) return;
    check_cuda(cudaMallocAsync(reinterpret_cast<void**>(&data_), host.size_bytes(), stream),
               "cudaMallocAsync (indices)");
    check_cuda(
        cudaMemcpyAsync(data_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream),
        "cudaMemcpyAsync (indices)");
  }
  ~DeviceIndices() {
    if (data_ != nullptr) cudaFreeAsync(data_, stream_);
  }
  DeviceIndices(const DeviceIndices&) = delete;
  DeviceIndices& operator=(const DeviceIndices&) = delete;
  /// The indices on the device.
  const std::int64_t* get() const { return data_; }

 private:
  std::int64_t* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

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

CudaDevice::CudaDevice(int ordinal, int ranks_sharing) : state_(std::make_shared<State>()) {
  const int count = visible_devices();
  if (ordinal < 0 || ordinal >= count) {
    throw NoDeviceError("no CUDA device " + std::to_string(ordinal) + " (this process sees " +
                        std::to_string(count) + ")");
  }
  state_->ordinal = ordinal;
  state_->sync_after_launch = cuda::sync_after_launch_requested();
  check_cuda(cudaSetDevice(ordinal), "cudaSetDevice");
  check_cuda(cudaGetDeviceProperties(&state_->properties, ordinal), "cudaGetDeviceProperties");
  check_cuda(cudaStreamCreateWithFlags(&state_->stream, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags");
  check_blas(cublasCreate(&state_->blas), "cublasCreate");
  check_blas(cublasSetStream(state_->blas, state_->stream), "cublasSetStream");
  // No reduced-precision reductions: with a bf16 output, cuBLAS may otherwise add the partial
  // sums of a split-k GEMM in bf16, and the bf16 tolerances assume every sum is in f32.
  check_blas(cublasSetMathMode(state_->blas, static_cast<cublasMath_t>(
                                                 CUBLAS_DEFAULT_MATH |
                                                 CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
             "cublasSetMathMode");
  // Freed memory stays in the stream-ordered pool up to the threshold of gpu_sharing.hpp: all
  // of it for a rank alone on its GPU, an equal share for ranks that share one.
  cudaMemPool_t pool = nullptr;
  check_cuda(cudaDeviceGetDefaultMemPool(&pool, ordinal), "cudaDeviceGetDefaultMemPool");
  std::uint64_t keep =
      cuda::pool_release_threshold(state_->properties.totalGlobalMem, ranks_sharing);
  check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
             "cudaMemPoolSetAttribute");
}

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

// ---- memory -------------------------------------------------------------------------------------

Tensor CudaDevice::empty(const Extents& extents, DType dtype) {
  // At least 256 bytes, so that an empty tensor still has an address of its own.
  const std::size_t bytes = std::max<std::size_t>(
      256, static_cast<std::size_t>(element_count(extents)) * dtype_size(dtype));
  void* raw = nullptr;
  check_cuda(cudaMallocAsync(&raw, bytes, state_->stream), "cudaMallocAsync");
  // Freed on the same stream, after every operation issued before the last handle went away.
  auto free_on_stream = [state = state_](std::byte* p) { cudaFreeAsync(p, state->stream); };
  return Tensor(extents, dtype, DeviceKind::cuda,
                std::shared_ptr<std::byte>(static_cast<std::byte*>(raw), free_on_stream));
}

void CudaDevice::fill(Tensor& x, double value) {
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

void CudaDevice::copy(const Tensor& src, Tensor& dst) {
  cuda::require_same("copy", src, dst);
  if (src.bytes() == 0) return;
  check_cuda(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice,
                             state_->stream),
             "cudaMemcpyAsync (device to device)");
}

void CudaDevice::upload(std::span<const double> host, Tensor& dst) {
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

void CudaDevice::download(const Tensor& src, std::span<double> host) {
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

// ---- linear algebra -----------------------------------------------------------------------------

namespace {

/// One cuBLAS call for a plan: GemmEx for one matrix, GemmStridedBatchedEx for several.
/// Compute in f64 for f64 and in f32 (no TF32) for f32 and bf16.
void run_gemm(const CudaDevice::State& state, const cuda::GemmPlan& p, const Tensor& a,
              const Tensor& b, Tensor& c, double alpha, double beta, bool batched) {
  if (p.rows == 0 || p.cols == 0 || p.batch == 0) return;
  const cudaDataType_t type = blas_type(c.dtype());
  const bool f64 = c.dtype() == DType::f64;
  const cublasComputeType_t compute = f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  const float alpha32 = static_cast<float>(alpha), beta32 = static_cast<float>(beta);
  const void* al = f64 ? static_cast<const void*>(&alpha) : &alpha32;
  const void* be = f64 ? static_cast<const void*>(&beta) : &beta32;
  const cublasOperation_t op_first = p.transpose_first ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = p.transpose_second ? CUBLAS_OP_T : CUBLAS_OP_N;
  // cuBLAS's first operand is our B and its second our A (launch_plan.hpp says why).
  if (!batched) {
    check_blas(cublasGemmEx(state.blas, op_first, op_second, p.rows, p.cols, p.depth, al, b.data(),
                            type, p.ld_first, a.data(), type, p.ld_second, be, c.data(), type,
                            p.ldc, compute, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
    state.after_launch("cublasGemmEx");
  } else {
    check_blas(cublasGemmStridedBatchedEx(state.blas, op_first, op_second, p.rows, p.cols, p.depth,
                                          al, b.data(), type, p.ld_first, p.stride_first, a.data(),
                                          type, p.ld_second, p.stride_second, be, c.data(), type,
                                          p.ldc, p.stride_c, p.batch, compute, CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
    state.after_launch("cublasGemmStridedBatchedEx");
  }
}

}  // namespace

void CudaDevice::matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                        double alpha, double beta) {
  cuda::require_one_dtype("matmul", a, b, c);
  // [m, k] x [k, n] -> [m, n] after the transposes
  const cuda::GemmPlan plan = cuda::plan_gemm(a.extents(), ta == Transpose::yes, b.extents(),
                                              tb == Transpose::yes, c.extents());
  run_gemm(*state_, plan, a, b, c, alpha, beta, false);
}

void CudaDevice::batched_matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb,
                                Tensor& c, double alpha, double beta) {
  cuda::require_one_dtype("batched_matmul", a, b, c);
  // [batch, m, k] x [batch, k, n] -> [batch, m, n] after the transposes
  const cuda::GemmPlan plan = cuda::plan_batched_gemm(
      a.extents(), ta == Transpose::yes, b.extents(), tb == Transpose::yes, c.extents());
  run_gemm(*state_, plan, a, b, c, alpha, beta, true);
}

// ---- element-wise -------------------------------------------------------------------------------

void CudaDevice::add_inplace(Tensor& y, const Tensor& x) {
  cuda::require_same("add_inplace", y, x);
  const cuda::Launch l =
      cuda::elementwise_launch(y.numel(), state_->properties.multiProcessorCount);
  if (l.blocks == 0) return;
  dispatch(y.dtype(), [&]<typename T>() {
    cuda::add_kernel<T>
        <<<grid_of(l), l.threads, 0, state_->stream>>>(typed<T>(y), typed<T>(x), y.numel());
  });
  state_->after_launch("add_kernel");
}

void CudaDevice::scale(Tensor& x, double alpha) {
  cuda::require_on_device("scale", x);
  const cuda::Launch l =
      cuda::elementwise_launch(x.numel(), state_->properties.multiProcessorCount);
  if (l.blocks == 0) return;
  dispatch(x.dtype(), [&]<typename T>() {
    cuda::scale_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(x), x.numel(), static_cast<cuda::Acc<T>>(alpha));
  });
  state_->after_launch("scale_kernel");
}

void CudaDevice::add_bias(Tensor& y, const Tensor& bias) {
  cuda::require_per_column("add_bias", y, bias);
  const cuda::Launch l = cuda::row_launch(y.rows());
  if (l.blocks == 0 || y.cols() == 0) return;
  dispatch(y.dtype(), [&]<typename T>() {
    cuda::add_bias_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(y), typed<T>(bias), y.rows(), y.cols());
  });
  state_->after_launch("add_bias_kernel");
}

void CudaDevice::column_sums(const Tensor& x, const Tensor* y, Tensor& out, double beta) {
  const std::int64_t rows = x.rows(), cols = x.cols();
  if (cols == 0) return;
  const cuda::ColumnSumPlan plan =
      cuda::column_sum_plan(rows, cols, state_->properties.multiProcessorCount);
  dispatch(x.dtype(), [&]<typename T>() {
    using A = cuda::Acc<T>;
    void* raw = nullptr;
    const std::size_t bytes = static_cast<std::size_t>(plan.row_chunks * cols) * sizeof(A);
    check_cuda(cudaMallocAsync(&raw, bytes, state_->stream), "cudaMallocAsync");
    A* partial = static_cast<A*>(raw);
    const dim3 grid(static_cast<unsigned>(plan.column_tiles),
                    static_cast<unsigned>(plan.row_chunks));
    const dim3 block(cuda::kColumnTile, cuda::kRowsPerBlock);
    const cuda::Launch l = cuda::elementwise_launch(cols, state_->properties.multiProcessorCount);
    try {
      cuda::column_partial_kernel<T>
          <<<grid, block, 0, state_->stream>>>(typed<T>(x), y == nullptr ? nullptr : typed<T>(*y),
                                               partial, rows, cols, plan.rows_per_chunk);
      state_->after_launch("column_partial_kernel");
      cuda::column_finish_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          partial, typed<T>(out), plan.row_chunks, cols, static_cast<A>(beta));
      state_->after_launch("column_finish_kernel");
    } catch (...) {
      cudaFreeAsync(raw, state_->stream);
      throw;
    }
    cudaFreeAsync(raw, state_->stream);
  });
}

void CudaDevice::column_sum(const Tensor& x, Tensor& out, double beta) {
  cuda::require_per_column("column_sum", x, out);
  column_sums(x, nullptr, out, beta);
}

void CudaDevice::gelu_forward(const Tensor& x, Tensor& y) {
  cuda::require_same("gelu_forward", x, y);
  const cuda::Launch l =
      cuda::elementwise_launch(x.numel(), state_->properties.multiProcessorCount);
  if (l.blocks == 0) return;
  dispatch(x.dtype(), [&]<typename T>() {
    cuda::gelu_forward_kernel<T>
        <<<grid_of(l), l.threads, 0, state_->stream>>>(typed<T>(x), typed<T>(y), x.numel());
  });
  state_->after_launch("gelu_forward_kernel");
}

void CudaDevice::gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx) {
  cuda::require_same("gelu_backward", x, dy);
  cuda::require_same("gelu_backward", x, dx);
  const cuda::Launch l =
      cuda::elementwise_launch(x.numel(), state_->properties.multiProcessorCount);
  if (l.blocks == 0) return;
  dispatch(x.dtype(), [&]<typename T>() {
    cuda::gelu_backward_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(x), typed<T>(dy), typed<T>(dx), x.numel());
  });
  state_->after_launch("gelu_backward_kernel");
}

// ---- attention ----------------------------------------------------------------------------------

void CudaDevice::causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) {
  cuda::require_causal_scores("causal_softmax_forward", scores, probs);
  const cuda::Launch l = cuda::row_launch(scores.rows());
  if (l.blocks == 0) return;
  dispatch(scores.dtype(), [&]<typename T>() {
    cuda::causal_softmax_forward_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(scores), typed<T>(probs), scores.rows(), scores.dim(1),
        static_cast<cuda::Acc<T>>(scale));
  });
  state_->after_launch("causal_softmax_forward_kernel");
}

void CudaDevice::causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                                         Tensor& dscores) {
  cuda::require_causal_scores("causal_softmax_backward", probs, dprobs);
  cuda::require_same("causal_softmax_backward", probs, dscores);
  const cuda::Launch l = cuda::row_launch(probs.rows());
  if (l.blocks == 0) return;
  dispatch(probs.dtype(), [&]<typename T>() {
    cuda::causal_softmax_backward_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(probs), typed<T>(dprobs), typed<T>(dscores), probs.rows(), probs.dim(1),
        static_cast<cuda::Acc<T>>(scale));
  });
  state_->after_launch("causal_softmax_backward_kernel");
}

void CudaDevice::split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) {
  const cuda::HeadLayout h = cuda::require_split_heads(x, batch, heads, out);
  const cuda::Launch l = cuda::row_launch(x.rows());  // x is token-major
  if (l.blocks == 0 || x.numel() == 0) return;
  dispatch(x.dtype(), [&]<typename T>() {
    cuda::heads_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(x), typed<T>(out), x.rows(), h.heads, h.sequence, h.head_dim, false);
  });
  state_->after_launch("heads_kernel (split)");
}

void CudaDevice::merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) {
  const cuda::HeadLayout h = cuda::require_merge_heads(x, batch, heads, out);
  const cuda::Launch l = cuda::row_launch(out.rows());  // out is token-major
  if (l.blocks == 0 || x.numel() == 0) return;
  dispatch(x.dtype(), [&]<typename T>() {
    cuda::heads_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(x), typed<T>(out), out.rows(), h.heads, h.sequence, h.head_dim, true);
  });
  state_->after_launch("heads_kernel (merge)");
}

std::int64_t CudaDevice::first_nonfinite(const Tensor& x) {
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

// ---- LayerNorm ----------------------------------------------------------------------------------

void CudaDevice::row_sum(const Tensor& x, Tensor& out) {
  cuda::require_per_row("row_sum", x, out);
  const cuda::Launch l = cuda::row_launch(x.rows());
  if (l.blocks == 0) return;
  dispatch(x.dtype(), [&]<typename T>() {
    cuda::row_sum_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(x), typed<T>(out), x.rows(), x.cols());
  });
  state_->after_launch("row_sum_kernel");
}

void CudaDevice::row_sum_squared_deviation(const Tensor& x, const Tensor& mean, Tensor& out) {
  cuda::require_per_row("row_sum_squared_deviation", x, mean);
  cuda::require_per_row("row_sum_squared_deviation", x, out);
  const cuda::Launch l = cuda::row_launch(x.rows());
  if (l.blocks == 0) return;
  dispatch(x.dtype(), [&]<typename T>() {
    cuda::row_squared_deviation_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(x), typed<T>(mean), typed<T>(out), x.rows(), x.cols());
  });
  state_->after_launch("row_squared_deviation_kernel");
}

void CudaDevice::layernorm_apply(const Tensor& x, const Tensor& mean, const Tensor& var, double eps,
                                 const Tensor& gamma, const Tensor& beta, Tensor& xhat,
                                 Tensor& rstd, Tensor& y) {
  cuda::require_same("layernorm_apply", x, xhat);
  cuda::require_same("layernorm_apply", x, y);
  cuda::require_per_row("layernorm_apply", x, mean);
  cuda::require_per_row("layernorm_apply", x, var);
  cuda::require_per_row("layernorm_apply", x, rstd);
  cuda::require_per_column("layernorm_apply", x, gamma);
  cuda::require_per_column("layernorm_apply", x, beta);
  const cuda::Launch l = cuda::row_launch(x.rows());
  if (l.blocks == 0) return;
  dispatch(x.dtype(), [&]<typename T>() {
    cuda::layernorm_apply_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(x), typed<T>(mean), typed<T>(var), static_cast<cuda::Acc<T>>(eps), typed<T>(gamma),
        typed<T>(beta), typed<T>(xhat), typed<T>(rstd), typed<T>(y), x.rows(), x.cols());
  });
  state_->after_launch("layernorm_apply_kernel");
}

void CudaDevice::layernorm_backward_sums(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                         Tensor& sums) {
  cuda::require_same("layernorm_backward_sums", dy, xhat);
  cuda::require_per_column("layernorm_backward_sums", dy, gamma);
  cuda::require_on_device("layernorm_backward_sums", sums);
  if (sums.extents() != Extents{dy.rows(), 2} || sums.dtype() != dy.dtype()) {
    throw InternalError("CudaDevice::layernorm_backward_sums: sums must be [rows, 2] of " +
                        std::string(dtype_name(dy.dtype())) + "; got " + to_string(sums.extents()));
  }
  const cuda::Launch l = cuda::row_launch(dy.rows());
  if (l.blocks == 0) return;
  dispatch(dy.dtype(), [&]<typename T>() {
    cuda::layernorm_sums_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(dy), typed<T>(gamma), typed<T>(xhat), typed<T>(sums), dy.rows(), dy.cols());
  });
  state_->after_launch("layernorm_sums_kernel");
}

void CudaDevice::layernorm_backward_input(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                          const Tensor& rstd, const Tensor& sums,
                                          std::int64_t features, Tensor& dx) {
  cuda::require_same("layernorm_backward_input", dy, xhat);
  cuda::require_same("layernorm_backward_input", dy, dx);
  cuda::require_per_column("layernorm_backward_input", dy, gamma);
  cuda::require_per_row("layernorm_backward_input", dy, rstd);
  cuda::require_on_device("layernorm_backward_input", sums);
  if (sums.extents() != Extents{dy.rows(), 2} || sums.dtype() != dy.dtype() || features <= 0) {
    throw InternalError(
        "CudaDevice::layernorm_backward_input: sums must be [rows, 2] and "
        "features positive; got " +
        to_string(sums.extents()) + " and " + std::to_string(features));
  }
  const cuda::Launch l = cuda::row_launch(dy.rows());
  if (l.blocks == 0) return;
  dispatch(dy.dtype(), [&]<typename T>() {
    using A = cuda::Acc<T>;
    cuda::layernorm_input_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(dy), typed<T>(gamma), typed<T>(xhat), typed<T>(rstd), typed<T>(sums),
        A(1) / static_cast<A>(features), typed<T>(dx), dy.rows(), dy.cols());
  });
  state_->after_launch("layernorm_input_kernel");
}

void CudaDevice::layernorm_backward_params(const Tensor& dy, const Tensor& xhat, Tensor& dgamma,
                                           Tensor& dbeta) {
  cuda::require_same("layernorm_backward_params", dy, xhat);
  cuda::require_per_column("layernorm_backward_params", dy, dgamma);
  cuda::require_per_column("layernorm_backward_params", dy, dbeta);
  column_sums(dy, &xhat, dgamma, 0.0);
  column_sums(dy, nullptr, dbeta, 0.0);
}

// ---- a vocabulary split over ranks --------------------------------------------------------------

void CudaDevice::gather_rows(const Tensor& table, std::span<const std::int64_t> rows, Tensor& out) {
  cuda::require_on_device("gather_rows", out);
  cuda::require_on_device("gather_rows", table);
  if (out.cols() != table.cols() || out.dtype() != table.dtype()) {
    throw InternalError("CudaDevice::gather_rows: rows of " + to_string(out.extents()) +
                        " and of the table " + to_string(table.extents()) + " differ");
  }
  cuda::require_index_per_row("gather_rows", out, rows.size());
  const cuda::Launch l = cuda::row_launch(out.rows());
  if (l.blocks == 0 || out.cols() == 0) return;
  const DeviceIndices ids(rows, state_->stream);
  dispatch(table.dtype(), [&]<typename T>() {
    cuda::gather_rows_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(table), ids.get(), typed<T>(out), out.rows(), table.rows(), out.cols());
  });
  state_->after_launch("gather_rows_kernel");
}

void CudaDevice::scatter_add_rows(const Tensor& src, std::span<const std::int64_t> rows,
                                  Tensor& table) {
  cuda::require_on_device("scatter_add_rows", src);
  cuda::require_on_device("scatter_add_rows", table);
  if (src.cols() != table.cols() || src.dtype() != table.dtype()) {
    throw InternalError("CudaDevice::scatter_add_rows: rows of " + to_string(src.extents()) +
                        " and of the table " + to_string(table.extents()) + " differ");
  }
  cuda::require_index_per_row("scatter_add_rows", src, rows.size());
  const cuda::Launch l = cuda::column_launch(src.cols());
  if (l.blocks == 0 || src.rows() == 0) return;
  const DeviceIndices ids(rows, state_->stream);
  dispatch(table.dtype(), [&]<typename T>() {
    cuda::scatter_add_rows_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(src), ids.get(), typed<T>(table), src.rows(), table.rows(), src.cols());
  });
  state_->after_launch("scatter_add_rows_kernel");
}

void CudaDevice::row_max(const Tensor& x, Tensor& out) {
  cuda::require_per_row("row_max", x, out);
  if (x.cols() == 0) throw InternalError("CudaDevice::row_max: rows without elements");
  const cuda::Launch l = cuda::row_launch(x.rows());
  if (l.blocks == 0) return;
  dispatch(x.dtype(), [&]<typename T>() {
    cuda::row_max_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(x), typed<T>(out), x.rows(), x.cols());
  });
  state_->after_launch("row_max_kernel");
}

void CudaDevice::cross_entropy_sums(const Tensor& logits, const Tensor& max,
                                    std::span<const std::int64_t> targets, Tensor& sums) {
  cuda::require_per_row("cross_entropy_sums", logits, max);
  cuda::require_index_per_row("cross_entropy_sums", logits, targets.size());
  cuda::require_row_pairs("cross_entropy_sums", logits, sums);
  const cuda::Launch l = cuda::row_launch(logits.rows());
  if (l.blocks == 0) return;
  const DeviceIndices t(targets, state_->stream);
  dispatch(logits.dtype(), [&]<typename T>() {
    cuda::cross_entropy_sums_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(logits), typed<T>(max), t.get(), typed<T>(sums), logits.rows(), logits.cols());
  });
  state_->after_launch("cross_entropy_sums_kernel");
}

void CudaDevice::cross_entropy_backward(const Tensor& logits, const Tensor& max, const Tensor& sums,
                                        std::span<const std::int64_t> targets, double scale,
                                        Tensor& dlogits) {
  cuda::require_same("cross_entropy_backward", logits, dlogits);
  cuda::require_per_row("cross_entropy_backward", logits, max);
  cuda::require_index_per_row("cross_entropy_backward", logits, targets.size());
  cuda::require_row_pairs("cross_entropy_backward", logits, sums);
  const cuda::Launch l = cuda::row_launch(logits.rows());
  if (l.blocks == 0) return;
  const DeviceIndices t(targets, state_->stream);
  dispatch(logits.dtype(), [&]<typename T>() {
    cuda::cross_entropy_backward_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
        typed<T>(logits), typed<T>(max), typed<T>(sums), t.get(), static_cast<cuda::Acc<T>>(scale),
        typed<T>(dlogits), logits.rows(), logits.cols());
  });
  state_->after_launch("cross_entropy_backward_kernel");
}

}  // namespace tplab
