// Tensor values and scalars come from the program file too. INT64_MIN / -1
// traps (SIGFPE) in the integer division instruction, so integer division
// must form that quotient without dividing; PyTorch's result wraps to
// INT64_MIN.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "safety_util.h"

namespace kernel_safety {
namespace {

using executorch::aten::ArrayRef;

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

} // namespace
} // namespace kernel_safety
