// The v1 kernel key format (docs/format.md §4.4) as built by
// internal::make_kernel_key_string().
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/kernel/operator_registry.h>

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::Span;
using executorch::runtime::TensorMeta;
using executorch::runtime::internal::kKernelKeyBufSize;
using executorch::runtime::internal::make_kernel_key_string;

namespace {

using TensorSpec = std::pair<int, std::vector<DimOrderType>>;

// Owns the dim orders the TensorMetas point to.
struct Metas {
  explicit Metas(std::vector<TensorSpec> specs) : specs_(std::move(specs)) {
    for (auto& s : specs_) {
      metas_.emplace_back(static_cast<ScalarType>(s.first),
                          Span<DimOrderType>(s.second.data(), s.second.size()));
    }
  }
  Span<const TensorMeta> span() const {
    return Span<const TensorMeta>(metas_.data(), metas_.size());
  }
  std::vector<TensorSpec> specs_;
  std::vector<TensorMeta> metas_;
};

std::string key_of(const Metas& m) {
  char buf[kKernelKeyBufSize];
  std::memset(buf, 0x55, sizeof(buf));
  Error err = make_kernel_key_string(m.span(), buf, sizeof(buf));
  EXPECT_EQ(err, Error::Ok);
  return err == Error::Ok ? std::string(buf) : std::string("<error>");
}

}  // namespace

TEST(KernelKeyTest, NoTensorsGiveEmptyKey) {
  Metas m(std::vector<TensorSpec>{});
  EXPECT_EQ(key_of(m), "");
}

TEST(KernelKeyTest, RankZeroTensor) {
  Metas m({TensorSpec{6, {}}});
  EXPECT_EQ(key_of(m), "v1/6;");
}

TEST(KernelKeyTest, RankZeroBetweenOthers) {
  Metas m({TensorSpec{6, {0, 1}}, TensorSpec{4, {}}, TensorSpec{11, {0}}});
  EXPECT_EQ(key_of(m), "v1/6;0,1|4;|11;0");
}

TEST(KernelKeyTest, TwoContiguousRank4Floats) {
  Metas m({{6, {0, 1, 2, 3}}, {6, {0, 1, 2, 3}}});
  EXPECT_EQ(key_of(m), "v1/6;0,1,2,3|6;0,1,2,3");
}

TEST(KernelKeyTest, ChannelsLastAndTwoDigitValues) {
  Metas m({{15, {0, 2, 3, 1}}, {7, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}});
  EXPECT_EQ(key_of(m), "v1/15;0,2,3,1|7;0,1,2,3,4,5,6,7,8,9,10,11");
}

TEST(KernelKeyTest, LargestEncodableValues) {
  Metas m({{99, {99, 0}}});
  EXPECT_EQ(key_of(m), "v1/99;99,0");
}

TEST(KernelKeyTest, DimOrderValueOf100IsInvalid) {
  Metas m({{6, {0, 100}}});
  char buf[kKernelKeyBufSize];
  std::memset(buf, 0x55, sizeof(buf));
  EXPECT_EQ(make_kernel_key_string(m.span(), buf, sizeof(buf)), Error::InvalidArgument);
  EXPECT_EQ(buf[0], '\0');
}

TEST(KernelKeyTest, DtypeOf100IsInvalid) {
  Metas m({{6, {0}}, {100, {0}}});
  char buf[kKernelKeyBufSize];
  EXPECT_EQ(make_kernel_key_string(m.span(), buf, sizeof(buf)), Error::InvalidArgument);
}

TEST(KernelKeyTest, NegativeDtypeIsInvalid) {
  Metas m({{-1, {0}}});
  char buf[kKernelKeyBufSize];
  EXPECT_EQ(make_kernel_key_string(m.span(), buf, sizeof(buf)), Error::InvalidArgument);
}

TEST(KernelKeyTest, NullOrEmptyBufferIsInvalid) {
  Metas m({{6, {0}}});
  char buf[4];
  EXPECT_EQ(make_kernel_key_string(m.span(), nullptr, 16), Error::InvalidArgument);
  EXPECT_EQ(make_kernel_key_string(m.span(), buf, 0), Error::InvalidArgument);
}

// Every buffer shorter than key + NUL fails without writing past its end;
// the exact size succeeds.
TEST(KernelKeyTest, TooSmallBuffersFailWithoutOverrun) {
  Metas m({{6, {0, 1, 2, 3}}, {15, {0, 2, 3, 1}}});
  const std::string expected = "v1/6;0,1,2,3|15;0,2,3,1";
  for (size_t size = 1; size <= expected.size(); ++size) {
    std::vector<char> buf(size + 8, 0x55);
    EXPECT_EQ(make_kernel_key_string(m.span(), buf.data(), size), Error::InvalidArgument)
        << "size " << size;
    EXPECT_EQ(buf[0], '\0');
    for (size_t i = size; i < buf.size(); ++i) {
      ASSERT_EQ(buf[i], 0x55) << "overrun at " << i << " with size " << size;
    }
  }
  std::vector<char> buf(expected.size() + 1);
  ASSERT_EQ(make_kernel_key_string(m.span(), buf.data(), buf.size()), Error::Ok);
  EXPECT_EQ(std::string(buf.data()), expected);
}

// The documented buffer size is enough for 16 tensors of rank 16.
TEST(KernelKeyTest, BufSizeHolds16TensorsOfRank16) {
  std::vector<TensorSpec> specs;
  for (int t = 0; t < 16; ++t) {
    std::vector<DimOrderType> dims;
    for (int d = 0; d < 16; ++d) {
      dims.push_back(static_cast<DimOrderType>(d));
    }
    specs.emplace_back(15, dims);
  }
  Metas m(specs);
  char buf[kKernelKeyBufSize];
  EXPECT_EQ(make_kernel_key_string(m.span(), buf, sizeof(buf)), Error::Ok);
  EXPECT_EQ(std::strlen(buf), kKernelKeyBufSize - 1);
}
