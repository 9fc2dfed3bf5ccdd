// The arithmetic inside CudaDevice's kernels, run on the CPU: where heads_kernel puts the heads
// of each token-major row, against CpuDevice's split_heads, and the online softmax as a warp of
// 32 lanes computes it, against a direct softmax in f64, with rows shorter than a warp (lanes
// that see nothing) and NaN.
#include "device/cuda/kernel_math.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "device/cpu_device.hpp"
#include "device/cuda/launch_plan.hpp"

namespace tplab::cuda {
namespace {

TEST(KernelMath, HeadLayoutMatchesCpuSplitHeads) {
  const std::int64_t b = 3, s = 5, n = 4, d = 7;
  CpuDevice cpu;
  Tensor x = cpu.empty({b * s, n * d}, DType::f64);
  for (std::int64_t i = 0; i < x.numel(); ++i) x.data_as<double>()[i] = static_cast<double>(i);
  Tensor heads = cpu.empty({b * n, s, d}, DType::f64);
  cpu.split_heads(x, b, n, heads);
  // heads_kernel's walk: token-major row r, head hi, column c of the head
  std::vector<int> hits(static_cast<std::size_t>(heads.numel()), 0);
  for (std::int64_t r = 0; r < b * s; ++r) {
    const TokenRowHeads place(r, n, s, d);
    for (std::int64_t hi = 0; hi < n; ++hi) {
      for (std::int64_t c = 0; c < d; ++c) {
        const std::int64_t token = (r * n + hi) * d + c, head = place.head_start(hi) + c;
        ASSERT_GE(head, 0);
        ASSERT_LT(head, heads.numel());
        EXPECT_EQ(heads.data_as<double>()[head], static_cast<double>(token))
            << "row " << r << " head " << hi << " column " << c;
        ++hits[static_cast<std::size_t>(head)];
      }
    }
  }
  EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
}

struct HostExp {
  template <typename A>
  A operator()(A v) const {
    return std::exp(v);
  }
};

/// The probabilities of the first `visible` values as causal_softmax_forward_kernel computes
/// them: lane l takes values l, l + 32, ...; the lanes' maxima and rescaled sums are combined.
template <typename A>
std::vector<A> warp_softmax(const std::vector<A>& z, std::size_t visible) {
  std::vector<OnlineSoftmax<A>> lanes(kWarpSize);
  for (std::size_t c = 0; c < visible; ++c) lanes[c % kWarpSize].add(z[c], HostExp{});
  A row_max = -INFINITY;
  for (const auto& l : lanes) row_max = std::max(row_max, l.max);
  A total = 0;
  for (const auto& l : lanes) total += l.sum_at(row_max, HostExp{});
  std::vector<A> p(z.size(), A(0));
  for (std::size_t c = 0; c < visible; ++c) p[c] = std::exp(z[c] - row_max) / total;
  return p;
}

TEST(KernelMath, OnlineSoftmaxOverAWarpMatchesTheDirectOne) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> dist(-30.0, 30.0);
  for (std::size_t visible : {1, 2, 5, 31, 32, 33, 100, 2048}) {
    std::vector<double> z(2048);
    for (double& v : z) v = dist(gen);
    std::vector<float> zf(z.begin(), z.end());
    const auto pf = warp_softmax(zf, visible);
    const auto pd = warp_softmax(z, visible);
    // the direct softmax in f64, of the f64 values and of the f32 ones
    const auto direct = [&](const auto& values) {
      double top = -INFINITY, sum = 0;
      for (std::size_t c = 0; c < visible; ++c) top = std::max(top, double(values[c]));
      for (std::size_t c = 0; c < visible; ++c) sum += std::exp(double(values[c]) - top);
      std::vector<double> p(values.size(), 0.0);
      for (std::size_t c = 0; c < visible; ++c) p[c] = std::exp(double(values[c]) - top) / sum;
      return p;
    };
    const auto want = direct(z), want_f = direct(zf);
    for (std::size_t c = 0; c < z.size(); ++c) {
      EXPECT_NEAR(pd[c], want[c], 1e-12 * want[c]) << visible << " visible, [" << c << "]";
      EXPECT_NEAR(pf[c], want_f[c], 1e-5 * want_f[c]) << visible << " visible, [" << c << "]";
    }
  }
}

TEST(KernelMath, OnlineSoftmaxTurnsANaNIntoNaNs) {
  std::vector<float> z(40, 1.0f);
  z[17] = NAN;
  const auto p = warp_softmax(z, 40);
  for (std::size_t c = 0; c < 40; ++c) EXPECT_TRUE(std::isnan(p[c])) << c;
}

}  // namespace
}  // namespace tplab::cuda
