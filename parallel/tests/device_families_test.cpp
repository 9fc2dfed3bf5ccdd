// Device hands each operation to its family's object: a backend made without one family is
// refused, and every call arrives at the family with its arguments in order.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "device/ops/cpu_ops.hpp"

namespace tplab {
namespace {

/// Matrix products that only record the scalars they were given.
class RecordingGemm final : public GemmOps {
 public:
  void matmul(const Tensor&, Transpose ta, const Tensor&, Transpose tb, Tensor&, double alpha,
              double beta) override {
    record = {ta, tb, alpha, beta};
  }
  void batched_matmul(const Tensor&, Transpose ta, const Tensor&, Transpose tb, Tensor&,
                      double alpha, double beta) override {
    record = {ta, tb, -alpha, -beta};
  }
  /// The last call's transposes and scalars (negated for batched_matmul).
  struct Record {
    Transpose ta = Transpose::no, tb = Transpose::no;
    double alpha = 0, beta = 0;
  } record;
};

TEST(DeviceFamilies, ABackendWithoutAFamilyIsRefusedByName) {
  DeviceFamilies families = cpu::make_families();
  families.softmax.reset();
  try {
    CpuDevice device(std::move(families));
    FAIL() << "a device without a softmax family was made";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("DeviceFamilies"), std::string::npos) << e.what();
  }
}

TEST(DeviceFamilies, EveryCallArrivesWithItsArguments) {
  DeviceFamilies families = cpu::make_families();
  auto gemm = std::make_unique<RecordingGemm>();
  const RecordingGemm& seen = *gemm;
  families.gemm = std::move(gemm);
  CpuDevice device(std::move(families));
  Tensor a = device.zeros({2, 2}, DType::f64);
  device.matmul(a, Transpose::yes, a, Transpose::no, a);  // the defaults: alpha 1, beta 0
  EXPECT_EQ(seen.record.ta, Transpose::yes);
  EXPECT_EQ(seen.record.tb, Transpose::no);
  EXPECT_EQ(seen.record.alpha, 1.0);
  EXPECT_EQ(seen.record.beta, 0.0);
  device.batched_matmul(a, Transpose::no, a, Transpose::yes, a, 2.0, 3.0);
  EXPECT_EQ(seen.record.tb, Transpose::yes);
  EXPECT_EQ(seen.record.alpha, -2.0);
  EXPECT_EQ(seen.record.beta, -3.0);

  // a family of the CPU through the device: column_sum's beta keeps the earlier sums
  Tensor x = device.empty({2, 3}, DType::f64);
  device.upload(std::vector<double>{1, 2, 3, 4, 5, 6}, x);
  Tensor sums = device.empty({3}, DType::f64);
  device.upload(std::vector<double>{10, 20, 30}, sums);
  device.column_sum(x, sums, 1.0);
  std::vector<double> host(3);
  device.download(sums, host);
  EXPECT_EQ(host, (std::vector<double>{15, 27, 39}));
}

}  // namespace
}  // namespace tplab
