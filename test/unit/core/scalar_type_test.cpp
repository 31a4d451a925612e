// ScalarType values, element sizes, names and promotion rules.
#include <gtest/gtest.h>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

using executorch::aten::ScalarType;
using namespace executorch::runtime;

TEST(ScalarTypeTest, EnumValuesInUpstreamOrder) {
  EXPECT_EQ(static_cast<int>(ScalarType::Byte), 0);
  EXPECT_EQ(static_cast<int>(ScalarType::Long), 4);
  EXPECT_EQ(static_cast<int>(ScalarType::Half), 5);
  EXPECT_EQ(static_cast<int>(ScalarType::Float), 6);
  EXPECT_EQ(static_cast<int>(ScalarType::Bool), 11);
  EXPECT_EQ(static_cast<int>(ScalarType::QInt8), 12);
  EXPECT_EQ(static_cast<int>(ScalarType::BFloat16), 15);
  EXPECT_EQ(static_cast<int>(ScalarType::Bits16), 22);
  EXPECT_EQ(static_cast<int>(ScalarType::Float8_e4m3fnuz), 26);
  EXPECT_EQ(static_cast<int>(ScalarType::UInt64), 29);
  EXPECT_EQ(static_cast<int>(ScalarType::Undefined), 30);
  EXPECT_EQ(static_cast<int>(ScalarType::NumOptions), 31);
}

TEST(ScalarTypeTest, ElementSizeOfEveryType) {
  const struct {
    ScalarType t;
    size_t size;
  } expected[] = {
      {ScalarType::Byte, 1},
      {ScalarType::Char, 1},
      {ScalarType::Short, 2},
      {ScalarType::Int, 4},
      {ScalarType::Long, 8},
      {ScalarType::Half, 2},
      {ScalarType::Float, 4},
      {ScalarType::Double, 8},
      {ScalarType::ComplexHalf, 4},
      {ScalarType::ComplexFloat, 8},
      {ScalarType::ComplexDouble, 16},
      {ScalarType::Bool, 1},
      {ScalarType::QInt8, 1},
      {ScalarType::QUInt8, 1},
      {ScalarType::QInt32, 4},
      {ScalarType::BFloat16, 2},
      {ScalarType::QUInt4x2, 1},
      {ScalarType::QUInt2x4, 1},
      {ScalarType::Bits1x8, 1},
      {ScalarType::Bits2x4, 1},
      {ScalarType::Bits4x2, 1},
      {ScalarType::Bits8, 1},
      {ScalarType::Bits16, 2},
      {ScalarType::Float8_e5m2, 1},
      {ScalarType::Float8_e4m3fn, 1},
      {ScalarType::Float8_e5m2fnuz, 1},
      {ScalarType::Float8_e4m3fnuz, 1},
      {ScalarType::UInt16, 2},
      {ScalarType::UInt32, 4},
      {ScalarType::UInt64, 8},
  };
  EXPECT_EQ(sizeof(expected) / sizeof(expected[0]), 30u);
  for (const auto& e : expected) {
    EXPECT_EQ(elementSize(e.t), e.size) << toString(e.t);
    EXPECT_TRUE(isValid(e.t)) << toString(e.t);
  }
  EXPECT_EQ(elementSize(ScalarType::Undefined), 0u);
  EXPECT_EQ(elementSize(static_cast<ScalarType>(100)), 0u);
  EXPECT_FALSE(isValid(ScalarType::Undefined));
  EXPECT_FALSE(isValid(static_cast<ScalarType>(-3)));
}

TEST(ScalarTypeTest, Names) {
  EXPECT_STREQ(toString(ScalarType::Float), "Float");
  EXPECT_STREQ(toString(ScalarType::ComplexDouble), "ComplexDouble");
  EXPECT_STREQ(toString(ScalarType::UInt64), "UInt64");
  EXPECT_STREQ(toString(static_cast<ScalarType>(77)), "UNKNOWN_SCALAR");
}

TEST(ScalarTypeTest, TypeMapping) {
  static_assert(CppTypeToScalarType<float>::value == ScalarType::Float, "");
  static_assert(CppTypeToScalarType<executorch::aten::Half>::value == ScalarType::Half, "");
  static_assert(std::is_same<ScalarTypeToCppType<ScalarType::Long>::type, int64_t>::value, "");
  static_assert(std::is_same<promote_types<int32_t, float>::type, float>::value, "");
  static_assert(std::is_same<promote_types<executorch::aten::Half, float>::type, float>::value, "");
}

TEST(ScalarTypeTest, Classification) {
  EXPECT_TRUE(isIntegralType(ScalarType::Long, false));
  EXPECT_FALSE(isIntegralType(ScalarType::Bool, false));
  EXPECT_TRUE(isIntegralType(ScalarType::Bool, true));
  EXPECT_TRUE(isFloatingType(ScalarType::BFloat16));
  EXPECT_FALSE(isFloatingType(ScalarType::Int));
  EXPECT_TRUE(isComplexType(ScalarType::ComplexFloat));
  EXPECT_TRUE(isQIntType(ScalarType::QUInt4x2));
  EXPECT_TRUE(isBitsType(ScalarType::Bits8));
  EXPECT_TRUE(isRealHBBF16Type(ScalarType::Bool));
  EXPECT_FALSE(isRealType(ScalarType::Half));
}

TEST(ScalarTypeTest, Promotion) {
  EXPECT_EQ(promoteTypes(ScalarType::Byte, ScalarType::Char), ScalarType::Short);
  EXPECT_EQ(promoteTypes(ScalarType::Int, ScalarType::Float), ScalarType::Float);
  EXPECT_EQ(promoteTypes(ScalarType::Bool, ScalarType::Bool), ScalarType::Bool);
  EXPECT_EQ(promoteTypes(ScalarType::Bool, ScalarType::Byte), ScalarType::Byte);
  EXPECT_EQ(promoteTypes(ScalarType::Long, ScalarType::Half), ScalarType::Half);
  EXPECT_EQ(promoteTypes(ScalarType::Long, ScalarType::Half, true), ScalarType::Float);
  EXPECT_EQ(promoteTypes(ScalarType::Half, ScalarType::BFloat16), ScalarType::Float);
  EXPECT_EQ(promoteTypes(ScalarType::BFloat16, ScalarType::Int), ScalarType::BFloat16);
  EXPECT_EQ(promoteTypes(ScalarType::Float, ScalarType::ComplexHalf), ScalarType::ComplexFloat);
  EXPECT_EQ(promoteTypes(ScalarType::Double, ScalarType::Float), ScalarType::Double);
  EXPECT_EQ(promoteTypes(ScalarType::QInt8, ScalarType::Float), ScalarType::Undefined);
  EXPECT_EQ(promoteTypes(ScalarType::UInt16, ScalarType::Int), ScalarType::Undefined);
}

TEST(ScalarTypeTest, CanCast) {
  EXPECT_TRUE(canCast(ScalarType::Int, ScalarType::Float));
  EXPECT_FALSE(canCast(ScalarType::Float, ScalarType::Int));
  EXPECT_FALSE(canCast(ScalarType::Int, ScalarType::Bool));
  EXPECT_TRUE(canCast(ScalarType::Bool, ScalarType::Bool));
  EXPECT_FALSE(canCast(ScalarType::ComplexFloat, ScalarType::Float));
}

TEST(ScalarTypeTest, HalfAndBFloat16RoundTrip) {
  using executorch::aten::BFloat16;
  using executorch::aten::Half;
  EXPECT_EQ(static_cast<float>(Half(1.5f)), 1.5f);
  EXPECT_EQ(Half(1.0f).x, 0x3C00);
  EXPECT_EQ(Half(65504.0f).x, 0x7BFF);
  EXPECT_EQ(Half(70000.0f).x, 0x7C00);
  EXPECT_EQ(Half(5.9604644775390625e-8f).x, 0x0001);  // smallest subnormal
  EXPECT_EQ(static_cast<float>(Half(-2.0f) * Half(3.0f)), -6.0f);
  EXPECT_EQ(BFloat16(1.0f).x, 0x3F80);
  EXPECT_EQ(static_cast<float>(BFloat16(3.0f) + BFloat16(1.0f)), 4.0f);
}

struct FakeContext {
  executorch::runtime::Error failure = executorch::runtime::Error::Ok;
  void fail(executorch::runtime::Error e) {
    failure = e;
  }
};

TEST(ScalarTypeTest, SwitchMacros) {
  FakeContext ctx;
  size_t seen = 0;
  ET_SWITCH_REAL_TYPES(ScalarType::Short, ctx, "test", CTYPE, [&]() { seen = sizeof(CTYPE); });
  EXPECT_EQ(seen, 2u);
  EXPECT_EQ(ctx.failure, executorch::runtime::Error::Ok);

  ET_SWITCH_REALHBBF16_TYPES(ScalarType::BFloat16, ctx, "test", CTYPE,
                             [&]() { seen = sizeof(CTYPE) + 100; });
  EXPECT_EQ(seen, 102u);

  ET_SWITCH_FLOAT_TYPES(ScalarType::Int, ctx, "test", CTYPE, [&]() { seen = sizeof(CTYPE); });
  EXPECT_EQ(ctx.failure, executorch::runtime::Error::InvalidArgument);

  FakeContext ctx2;
  ET_SWITCH_SCALAR_OBJ_TYPES(ScalarType::Long, ctx2, "test", CTYPE,
                             [&]() { seen = std::is_same<CTYPE, int64_t>::value ? 1 : 0; });
  EXPECT_EQ(seen, 1u);
  ET_SWITCH_TWO_TYPES(Bool, Byte, ScalarType::Byte, ctx2, "test", CTYPE,
                      [&]() { seen = std::is_same<CTYPE, uint8_t>::value ? 7 : 0; });
  EXPECT_EQ(seen, 7u);
  EXPECT_EQ(ctx2.failure, executorch::runtime::Error::Ok);
}
