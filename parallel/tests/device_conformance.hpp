// One suite of operation-by-operation checks for any Device that computes what CpuDevice
// computes: on random inputs with ragged extents, f64 and f32 against the CPU in the same
// dtype, bf16 against the CPU's f32 on the same (bf16-rounded) inputs, where the device under
// test may differ by one rounding of its result to bf16. device_conformance_test.cpp holds the
// checks; each backend instantiates them (cpu_bf16_device_test.cpp, cuda_device_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "core/bf16.hpp"
#include "device/cpu_device.hpp"

namespace tplab {

/// A device under test and the dtype it is checked in.
struct DeviceUnderTest {
  std::string label;  ///< the test's name suffix, e.g. "cpu_onednn_bf16"
  DType dtype = DType::f32;
  /// Makes the device, or returns null after setting `skip` to why it cannot run here (a
  /// machine without a GPU, a CPU without bf16 instructions); throws when it should run and
  /// cannot.
  std::function<std::unique_ptr<Device>(std::string& skip)> make;
};

/// Test output names a device under test by its label.
inline void PrintTo(const DeviceUnderTest& d, std::ostream* os) {
  *os << d.label;
}

/// A tensor with the same values on the reference CPU and on the device under test.
struct Pair {
  Tensor cpu, dut;
};

class DeviceConformance : public testing::TestWithParam<DeviceUnderTest> {
 protected:
  void SetUp() override {
    std::string skip;
    dut = GetParam().make(skip);
    if (!dut) GTEST_SKIP() << skip;
  }

  DType dtype() const { return GetParam().dtype; }
  DType cpu_dtype() const { return dtype() == DType::bf16 ? DType::f32 : dtype(); }

  /// The value the device's dtype holds nearest to v.
  double representable(double v) const {
    return dtype() == DType::bf16 ? float_from_bf16(bf16_from_double(v)) : v;
  }

  Pair make(const Extents& e, unsigned seed, double low = -1.0, double high = 1.0) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(low, high);
    std::vector<double> v(static_cast<std::size_t>(element_count(e)));
    for (double& x : v) x = representable(dist(gen));
    return upload(e, v);
  }
  Pair upload(const Extents& e, const std::vector<double>& v) {
    Pair p{cpu.empty(e, cpu_dtype()), dut->empty(e, dtype())};
    cpu.upload(v, p.cpu);
    dut->upload(v, p.dut);
    return p;
  }
  Pair empty(const Extents& e) { return {cpu.empty(e, cpu_dtype()), dut->empty(e, dtype())}; }

  std::vector<double> read(Device& d, const Tensor& t) {
    std::vector<double> v(static_cast<std::size_t>(t.numel()));
    d.download(t, v);
    return v;
  }

  /// Every element within the dtype's bound: one rounding of the result for bf16 (2^-8 of the
  /// value), the order of summation for f32 and f64; plus a share of the RMS for results that
  /// cancel to near zero.
  void expect_close(const Pair& p, const char* what) {
    const auto want = read(cpu, p.cpu);
    const auto got = read(*dut, p.dut);
    ASSERT_EQ(want.size(), got.size());
    double sum = 0;
    for (double w : want) sum += w * w;
    const double rms = want.empty() ? 0 : std::sqrt(sum / static_cast<double>(want.size()));
    const double rel = dtype() == DType::f64 ? 1e-12 : dtype() == DType::f32 ? 1e-5 : 0x1p-8;
    const double abs = dtype() == DType::f64 ? 1e-12 : 1e-5;
    int reported = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const bool ok = std::abs(got[i] - want[i]) <= rel * std::abs(want[i]) + abs * rms;
      if (!ok && reported++ < 5) {
        ADD_FAILURE() << what << " [" << i << "]: device " << got[i] << " cpu " << want[i];
      }
    }
  }

  CpuDevice cpu;
  std::unique_ptr<Device> dut;
};

/// The test name of a device under test: its label.
inline std::string device_label(const testing::TestParamInfo<DeviceUnderTest>& info) {
  return info.param.label;
}

}  // namespace tplab
