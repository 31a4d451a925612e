// Tensor values and scalars come from the program file too. INT64_MIN / -1
// traps (SIGFPE) in the integer division instruction, so integer division
// must form that quotient without dividing; and int64 arithmetic that
// overflows must wrap modulo 2^64 as in PyTorch rather than be undefined
// behaviour (UBSan stops on it).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/core/exec_aten/util/tensor_util.h>

#include "safety_util.h"

namespace kernel_safety {
namespace {

using executorch::aten::ArrayRef;
using executorch::aten::SizesType;

TEST(KernelSafetyValues, IntegerDivisionOfInt64MinByMinusOneWraps) {
  for (const std::string mode : {"trunc", "floor"}) {
    SCOPED_TRACE(mode);
    ArrayRef<char> mode_ref(mode.data(), mode.size());
    ExactTensor a(ScalarType::Long, {2}), b(ScalarType::Long, {2}), out(ScalarType::Long, {2});
    a.data<int64_t>()[0] = INT64_MIN;
    a.data<int64_t>()[1] = 7;
    b.data<int64_t>()[0] = -1;
    b.data<int64_t>()[1] = -1;
    EValue ea(a.tensor()), eb(b.tensor()), em(&mode_ref), eo(out.tensor());
    ASSERT_EQ(call("aten::div.out_mode", {&ea, &eb, &em, &eo, &eo}), Error::Ok);
    EXPECT_EQ(out.data<int64_t>()[0], INT64_MIN);
    EXPECT_EQ(out.data<int64_t>()[1], -7);

    EValue minus_one(int64_t{-1});
    ASSERT_EQ(call("aten::div.Scalar_mode_out", {&ea, &minus_one, &em, &eo, &eo}), Error::Ok);
    EXPECT_EQ(out.data<int64_t>()[0], INT64_MIN);
    EXPECT_EQ(out.data<int64_t>()[1], -7);
  }
}

// One int64 element in, one out.
int64_t unary_long(const char* op, int64_t v, std::vector<EValue> extra = {}) {
  ExactTensor a(ScalarType::Long, {1}), out(ScalarType::Long, {1});
  a.data<int64_t>()[0] = v;
  EValue ea(a.tensor()), eo(out.tensor());
  std::vector<EValue*> args = {&ea};
  for (EValue& e : extra) {
    args.push_back(&e);
  }
  args.push_back(&eo);
  args.push_back(&eo);
  EXPECT_EQ(call(op, args), Error::Ok) << op;
  return out.data<int64_t>()[0];
}

TEST(KernelSafetyValues, Int64ArithmeticWrapsModulo2To64) {
  EXPECT_EQ(unary_long("aten::add.Scalar_out", INT64_MAX, {EValue(int64_t{1}), EValue(int64_t{1})}),
            INT64_MIN);
  EXPECT_EQ(unary_long("aten::sub.Scalar_out", INT64_MIN, {EValue(int64_t{1}), EValue(int64_t{1})}),
            INT64_MAX);
  EXPECT_EQ(unary_long("aten::mul.Scalar_out", int64_t{1} << 62, {EValue(int64_t{4})}), 0);
  EXPECT_EQ(unary_long("aten::neg.out", INT64_MIN), INT64_MIN);
  EXPECT_EQ(unary_long("aten::abs.out", INT64_MIN), INT64_MIN);
  EXPECT_EQ(unary_long("aten::pow.Tensor_Scalar_out", 3, {EValue(int64_t{64})}),
            8733086111712066817);  // 3^64 mod 2^64 as int64

  ExactTensor a(ScalarType::Long, {2}), b(ScalarType::Long, {2}), out(ScalarType::Long, {2});
  a.data<int64_t>()[0] = INT64_MAX;
  a.data<int64_t>()[1] = int64_t{1} << 62;
  b.data<int64_t>()[0] = 1;
  b.data<int64_t>()[1] = 4;
  EValue ea(a.tensor()), eb(b.tensor()), alpha(int64_t{1}), eo(out.tensor());
  ASSERT_EQ(call("aten::add.out", {&ea, &eb, &alpha, &eo, &eo}), Error::Ok);
  EXPECT_EQ(out.data<int64_t>()[0], INT64_MIN);
  ASSERT_EQ(call("aten::mul.out", {&ea, &eb, &eo, &eo}), Error::Ok);
  EXPECT_EQ(out.data<int64_t>()[1], 0);

  ExactTensor sum(ScalarType::Long, {});
  EValue none, keep(false), es(sum.tensor());
  b.data<int64_t>()[1] = INT64_MAX;
  ASSERT_EQ(call("aten::sum.IntList_out", {&eb, &none, &keep, &none, &es, &es}), Error::Ok);
  EXPECT_EQ(sum.data<int64_t>()[0], INT64_MIN);  // 1 + INT64_MAX

  ExactTensor m1(ScalarType::Long, {1, 1}), m2(ScalarType::Long, {1, 1});
  ExactTensor mo(ScalarType::Long, {1, 1});
  m1.data<int64_t>()[0] = int64_t{1} << 62;
  m2.data<int64_t>()[0] = 4;
  EValue e1(m1.tensor()), e2(m2.tensor()), emo(mo.tensor());
  mo.data<int64_t>()[0] = 5;
  ASSERT_EQ(call("aten::mm.out", {&e1, &e2, &emo, &emo}), Error::Ok);
  EXPECT_EQ(mo.data<int64_t>()[0], 0);
}

// Float to integer conversion of values outside the target's range (or NaN)
// is undefined in C++; the kernels define it as x86 computes it, which is
// what PyTorch gives there (torch.tensor([1e30]).to(torch.int32) is INT32_MIN).
template <class T>
std::vector<T> float_to(ScalarType dtype, const std::vector<float>& in) {
  ExactTensor a(ScalarType::Float, {static_cast<int32_t>(in.size())});
  ExactTensor out(dtype, {static_cast<int32_t>(in.size())});
  for (size_t i = 0; i < in.size(); ++i) {
    a.data<float>()[i] = in[i];
  }
  EValue ea(a.tensor()), nb(false), mf, eo(out.tensor());
  EXPECT_EQ(call("aten::_to_copy.out", {&ea, &nb, &mf, &eo, &eo}), Error::Ok);
  return std::vector<T>(out.data<T>(), out.data<T>() + in.size());
}

TEST(KernelSafetyValues, FloatToIntegerOutOfRangeIsDefined) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> in = {1e30f, -1e30f, nan, 3.7f, -3.7f, 2147483648.0f};
  EXPECT_EQ(float_to<int32_t>(ScalarType::Int, in),
            (std::vector<int32_t>{INT32_MIN, INT32_MIN, INT32_MIN, 3, -3, INT32_MIN}));
  EXPECT_EQ(float_to<int64_t>(ScalarType::Long, in),
            (std::vector<int64_t>{INT64_MIN, INT64_MIN, INT64_MIN, 3, -3, 2147483648LL}));
  EXPECT_EQ(float_to<int8_t>(ScalarType::Char, in), (std::vector<int8_t>{0, 0, 0, 3, -3, 0}));
}

// An output that is also an input of the same call (the same value twice, or
// a MoveCall that aliased two slots): resizing it would change the input's
// shape under the kernel. addmm then multiplied with mat1's new inner
// dimension and read mat2 past its end (found by the method_execute fuzzer).
TEST(KernelSafetyValues, OutputAliasingAnInputIsNotResizedUnderTheKernel) {
  ExactTensor both(ScalarType::Float, {8, 6}, nullptr, /*dynamic=*/true);  // capacity 48
  const SizesType as_mat1[2] = {8, 4};
  ASSERT_EQ(executorch::runtime::resize_tensor(both.tensor(), ArrayRef<SizesType>(as_mat1, 2)),
            Error::Ok);
  ExactTensor mat2(ScalarType::Float, {4, 6}), bias(ScalarType::Float, {6});
  EValue eb(bias.tensor()), e1(both.tensor()), e2(mat2.tensor()), one(1.0), eo(both.tensor());
  EXPECT_EQ(call("aten::addmm.out", {&eb, &e1, &e2, &one, &one, &eo, &eo}), Error::InvalidArgument);
  EXPECT_EQ(both.tensor().size(1), 4);
  // In place at the same shape stays allowed: out = a + a.
  ExactTensor a(ScalarType::Float, {3});
  a.data<float>()[2] = 5;
  EValue ea(a.tensor()), alpha(int64_t{1}), ea_out(a.tensor());
  ASSERT_EQ(call("aten::add.out", {&ea, &ea, &alpha, &ea_out, &ea_out}), Error::Ok);
  EXPECT_EQ(a.data<float>()[2], 10);
}

}  // namespace
}  // namespace kernel_safety
