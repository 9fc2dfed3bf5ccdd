#include <gtest/gtest.h>

#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "scheme/block_shape.hpp"

namespace tplab {
namespace {

TEST(Tensor, SliceRowsIsAViewOfTheSameMemory) {
  CpuDevice dev;
  Tensor t = dev.empty({4, 3}, DType::f64);
  dev.upload(std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, t);
  Tensor rows = t.slice_rows(1, 2);
  EXPECT_EQ(rows.extents(), (Extents{2, 3}));
  EXPECT_EQ(rows.data_as<double>()[0], 3.0);
  rows.data_as<double>()[0] = 42.0;
  EXPECT_EQ(t.data_as<double>()[3], 42.0);
  EXPECT_THROW(t.slice_rows(3, 2), InternalError);
  EXPECT_THROW(t.reshaped({5, 2}), InternalError);
}

TEST(BlockShape, ParsesAndRefusesWithMessages) {
  const BlockShape s = parse_block_shape("2,16,64,4");
  EXPECT_EQ(s.tokens(), 32);
  EXPECT_EQ(s.head_dim(), 16);
  for (const char* bad : {"2,16,64", "2,16,64,4,1", "2,x,64,4", "2,16,-64,4", "0,16,64,4",
                          "2,4,2,1", "2,16,64,5", "", "2,,64,4", "2.5,16,64,4"}) {
    EXPECT_THROW(parse_block_shape(bad), UsageError) << bad;
  }
  try {
    parse_block_shape("2,16,64,5");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not divisible by 5 heads"), std::string::npos);
  }
}

TEST(BlockShape, RefusesShapesWhoseSizesOverflow64BitIntegers) {
  // b*s wraps around; then s*s of the attention scores; then h*4h of W1, in bytes.
  for (const char* huge : {"4294967296,4294967296,64,4", "1,4000000000,64,4", "1,1,1073741824,4"}) {
    try {
      parse_block_shape(huge);
      ADD_FAILURE() << huge << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("more bytes than a 64-bit integer counts"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(parse_block_shape("8,2048,8192,64"));
  EXPECT_TRUE(f64_bytes_fit_int64({std::int64_t{1} << 30, std::int64_t{1} << 29}));
  EXPECT_FALSE(f64_bytes_fit_int64({std::int64_t{1} << 30, std::int64_t{1} << 30}));
}

TEST(BlockShape, GlobalExtentsOfEveryTensor) {
  const BlockShape s{2, 8, 16, 4};
  EXPECT_EQ(global_extents("x", s), (Extents{16, 16}));
  EXPECT_EQ(global_extents("w1", s), (Extents{16, 64}));
  EXPECT_EQ(global_extents("d_w2", s), (Extents{64, 16}));
  EXPECT_EQ(global_extents("b1", s), (Extents{64}));
  EXPECT_EQ(global_extents("ln2_gamma", s), (Extents{16}));
  EXPECT_THROW(global_extents("nope", s), InternalError);
}

}  // namespace
}  // namespace tplab
