// The kernel authoring API (EXECUTORCH_LIBRARY / make_boxed_from_unboxed_functor)
// and the boxed calling convention, checked through the registry: a custom
// operator registered from this test binary, argument conversion for every
// supported parameter kind, and argument-count / kind errors that fail the
// context instead of aborting. Also: the kernel library registered the
// operators of the zoo's operator union that it owns.
#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/kernel_util/make_boxed_from_unboxed_functor.h>
#include <executorch/runtime/kernel/kernel_includes.h>

#include "kernel_test_util.h"

namespace {

using executorch::aten::ArrayRef;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::KernelRuntimeContext;
using kernel_test::OwnedTensor;

// out = self * factor + offset (custom operator, float only).
Tensor& scale_out(KernelRuntimeContext& ctx, const Tensor& self, double factor,
                  const Scalar& offset, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == ScalarType::Float, InvalidArgument, out,
                      "my_ns::scale.out: argument 'self' must be float");
  ET_KERNEL_CHECK(ctx, executorch::runtime::resize_tensor(out, self.sizes()) == Error::Ok,
                  InvalidArgument, out);
  const float* in = self.const_data_ptr<float>();
  float* o = out.mutable_data_ptr<float>();
  for (ssize_t i = 0; i < self.numel(); ++i) {
    o[i] = static_cast<float>(in[i] * factor + offset.to<double>());
  }
  return out;
}
EXECUTORCH_LIBRARY(my_ns, "scale.out", scale_out);

// Counts what it received: exercises every argument conversion.
int64_t g_seen = 0;
void probe(KernelRuntimeContext& ctx, std::optional<Tensor> maybe, ArrayRef<int64_t> ints,
           executorch::aten::TensorList list, ArrayRef<std::optional<Tensor>> opt_list,
           std::optional<int64_t> oi, std::optional<ArrayRef<int64_t>> maybe_ints, bool flag,
           std::string_view s) {
  (void)ctx;
  int64_t n = maybe.has_value() ? 1000 : 0;
  for (int64_t v : ints) {
    n += v;
  }
  n += 100 * static_cast<int64_t>(list.size());
  for (const auto& t : opt_list) {
    n += t.has_value() ? 10000 : 20000;
  }
  n += oi.value_or(-1) * 100000;
  n += maybe_ints.has_value() ? 3000000 : 0;
  n += flag ? 50000000 : 0;
  n += static_cast<int64_t>(s.size()) * 100000000;
  g_seen = n;
}
EXECUTORCH_LIBRARY(my_ns, "probe", probe);

TEST(KernelAuthoringApi, CustomOperatorThroughRegistry) {
  OwnedTensor in(ScalarType::Float, {2, 2});
  OwnedTensor out(ScalarType::Float, {2, 2});
  float* p = in.tensor().mutable_data_ptr<float>();
  for (int i = 0; i < 4; ++i) {
    p[i] = static_cast<float>(i);
  }
  EValue v[] = {EValue(in.tensor()), EValue(2.0), EValue(Scalar(int64_t(1))), EValue(out.tensor())};
  std::vector<EValue*> stack = {&v[0], &v[1], &v[2], &v[3], &v[3]};
  ASSERT_EQ(kernel_test::call_op("my_ns::scale.out", stack), Error::Ok);
  const float* o = out.tensor().const_data_ptr<float>();
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(o[i], 2.0f * i + 1.0f);
  }
  EXPECT_TRUE(v[3].isTensor());
}

TEST(KernelAuthoringApi, WrongArgumentCountFailsWithoutAbort) {
  OwnedTensor in(ScalarType::Float, {2});
  EValue v[] = {EValue(in.tensor()), EValue(2.0)};
  std::vector<EValue*> stack = {&v[0], &v[1]};
  EXPECT_EQ(kernel_test::call_op("my_ns::scale.out", stack), Error::InvalidProgram);
  // A library kernel with a missing return slot.
  EValue w[] = {EValue(in.tensor()), EValue(in.tensor()), EValue(int64_t(1)), EValue(in.tensor())};
  std::vector<EValue*> s2 = {&w[0], &w[1], &w[2], &w[3]};
  EXPECT_EQ(kernel_test::call_op("aten::add.out", s2), Error::InvalidProgram);
}

TEST(KernelAuthoringApi, WrongArgumentKindFailsWithoutAbort) {
  OwnedTensor out(ScalarType::Float, {2});
  EValue v[] = {EValue(int64_t(3)), EValue(2.0), EValue(Scalar(1.0)), EValue(out.tensor())};
  std::vector<EValue*> stack = {&v[0], &v[1], &v[2], &v[3], &v[3]};
  EXPECT_EQ(kernel_test::call_op("my_ns::scale.out", stack), Error::InvalidArgument);
  // Double expected, Int given.
  EValue w[] = {EValue(out.tensor()), EValue(int64_t(2)), EValue(Scalar(1.0)),
                EValue(out.tensor())};
  std::vector<EValue*> s2 = {&w[0], &w[1], &w[2], &w[3], &w[3]};
  EXPECT_EQ(kernel_test::call_op("my_ns::scale.out", s2), Error::InvalidArgument);
  // A library kernel given a None where its out tensor belongs.
  OwnedTensor a(ScalarType::Float, {2});
  EValue x[] = {EValue(a.tensor()), EValue(a.tensor()), EValue()};
  std::vector<EValue*> s3 = {&x[0], &x[1], &x[2], &x[2]};
  EXPECT_EQ(kernel_test::call_op("aten::mul.out", s3), Error::InvalidArgument);
}

TEST(KernelAuthoringApi, KernelCheckInsideCustomKernel) {
  OwnedTensor in(ScalarType::Long, {2});
  OwnedTensor out(ScalarType::Float, {2});
  EValue v[] = {EValue(in.tensor()), EValue(2.0), EValue(Scalar(1.0)), EValue(out.tensor())};
  std::vector<EValue*> stack = {&v[0], &v[1], &v[2], &v[3], &v[3]};
  EXPECT_EQ(kernel_test::call_op("my_ns::scale.out", stack), Error::InvalidArgument);
}

TEST(KernelAuthoringApi, ArgumentConversions) {
  OwnedTensor t(ScalarType::Float, {1});
  EValue tv(t.tensor());
  EValue none;
  // int list [2, 3]
  EValue i2(int64_t(2)), i3(int64_t(3));
  EValue* ints_w[] = {&i2, &i3};
  int64_t ints_u[2];
  BoxedEvalueList<int64_t> ints(ints_w, ints_u, 2);
  // tensor list of 2
  EValue* tl_w[] = {&tv, &tv};
  Tensor tl_u[2] = {t.tensor(), t.tensor()};
  BoxedEvalueList<Tensor> tl(tl_w, tl_u, 2);
  // optional tensor list [tensor, None]
  EValue* ol_w[] = {&tv, &none};
  std::optional<Tensor> ol_u[2];
  BoxedEvalueList<std::optional<Tensor>> ol(ol_w, ol_u, 2);
  std::string str = "ab";
  ArrayRef<char> sref(str.data(), str.size());
  EValue v[] = {EValue(t.tensor()), EValue(&ints), EValue(&tl),   EValue(&ol), EValue(int64_t(4)),
                EValue(),           EValue(true),  EValue(&sref), EValue()};
  std::vector<EValue*> stack;
  for (EValue& e : v) {
    stack.push_back(&e);
  }
  g_seen = 0;
  ASSERT_EQ(kernel_test::call_op("my_ns::probe", stack), Error::Ok);
  EXPECT_EQ(g_seen, 1000 + 5 + 200 + 30000 + 400000 + 0 + 50000000 + 200000000);
  // None for the optional tensor and an empty optional int.
  v[0] = EValue();
  v[4] = EValue();
  v[5] = EValue(&ints);
  g_seen = 0;
  ASSERT_EQ(kernel_test::call_op("my_ns::probe", stack), Error::Ok);
  EXPECT_EQ(g_seen, 0 + 5 + 200 + 30000 - 100000 + 3000000 + 50000000 + 200000000);
}

TEST(KernelLibrary, RegistersItsZooOperators) {
  const char* kOps[] = {"aten::add.out",
                        "aten::alias_copy.out",
                        "aten::any.out",
                        "aten::bitwise_and.Tensor_out",
                        "aten::copy_",
                        "aten::cos.out",
                        "aten::eq.Scalar_out",
                        "aten::eq.Tensor_out",
                        "aten::full.out",
                        "aten::full_like.out",
                        "aten::ge.Scalar_out",
                        "aten::gelu.out",
                        "aten::gt.Scalar_out",
                        "aten::hardtanh.out",
                        "aten::le.Tensor_out",
                        "aten::logical_not.out",
                        "aten::mul.Scalar_out",
                        "aten::mul.out",
                        "aten::ne.Scalar_out",
                        "aten::neg.out",
                        "aten::pow.Tensor_Scalar_out",
                        "aten::relu.out",
                        "aten::rsqrt.out",
                        "aten::scalar_tensor.out",
                        "aten::sigmoid.out",
                        "aten::sin.out",
                        "aten::sub.out",
                        "aten::tanh.out",
                        "aten::where.self_out",
                        "dim_order_ops::_clone_dim_order.out",
                        "dim_order_ops::_to_dim_order_copy.out",
                        "aten::div.out",
                        "aten::clamp.out",
                        "aten::any.dims_out",
                        "aten::exp.out",
                        "aten::sqrt.out",
                        "aten::abs.out",
                        "aten::log.out",
                        "aten::masked_fill.Scalar_out",
                        "aten::silu.out"};
  for (const char* op : kOps) {
    EXPECT_TRUE(executorch::runtime::registry_has_op_function(op)) << op;
  }
}

// In-place aliasing: out is the same tensor as an input.
TEST(KernelLibrary, OutAliasesInput) {
  OwnedTensor a(ScalarType::Float, {3});
  float* p = a.tensor().mutable_data_ptr<float>();
  p[0] = 1;
  p[1] = 2;
  p[2] = 3;
  EValue v[] = {EValue(a.tensor()), EValue(a.tensor()), EValue(int64_t(1)), EValue(a.tensor())};
  std::vector<EValue*> stack = {&v[0], &v[1], &v[2], &v[3], &v[3]};
  ASSERT_EQ(kernel_test::call_op("aten::add.out", stack), Error::Ok);
  EXPECT_FLOAT_EQ(p[0], 2);
  EXPECT_FLOAT_EQ(p[2], 6);
}

}  // namespace

namespace {

// permute_copy of shapes large enough for the tiled transpose (both swapped dims >= 16, ragged
// edges, other dims around them), every element checked against the index formula, for
// 4-byte and 2-byte elements.
TEST(KernelLibrary, PermuteCopyTransposesLargeShapes) {
  struct Case {
    std::vector<int32_t> shape;
    std::vector<int64_t> dims;
  };
  const Case cases[] = {
      {{37, 45}, {1, 0}},
      {{3, 37, 45}, {2, 0, 1}},
      {{3, 37, 45}, {0, 2, 1}},
      {{2, 20, 17, 33}, {0, 2, 3, 1}},  // NCHW -> NHWC
      {{2, 17, 33, 20}, {0, 3, 1, 2}},  // NHWC -> NCHW
  };
  for (ScalarType dtype : {ScalarType::Float, ScalarType::Half}) {
    for (const Case& c : cases) {
      const size_t rank = c.shape.size();
      std::vector<int32_t> out_shape(rank);
      for (size_t d = 0; d < rank; ++d) {
        out_shape[d] = c.shape[static_cast<size_t>(c.dims[d])];
      }
      OwnedTensor in(dtype, c.shape), out(dtype, out_shape);
      const int64_t n = in.tensor().numel();
      const size_t es = in.tensor().element_size();
      uint8_t* ip = static_cast<uint8_t*>(in.tensor().mutable_data_ptr());
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t v = static_cast<uint16_t>(i * 7 + 1);  // distinct bit patterns
        std::memset(ip + i * es, 0, es);
        std::memcpy(ip + i * es, &v, sizeof v);
      }
      kernel_test::IntList dims(c.dims);
      EValue v[] = {EValue(in.tensor()), dims.ev, EValue(out.tensor())};
      std::vector<EValue*> stack = {&v[0], &v[1], &v[2], &v[2]};
      ASSERT_EQ(kernel_test::call_op("aten::permute_copy.out", stack), Error::Ok);
      const uint8_t* op = static_cast<const uint8_t*>(out.tensor().const_data_ptr());
      // out[j] = in[i] where i's index along dims[d] is j's index along d.
      std::vector<int64_t> idx(rank, 0);
      for (int64_t j = 0; j < n; ++j) {
        int64_t rem = j, src = 0;
        for (size_t d = rank; d-- > 0;) {
          idx[d] = rem % out_shape[d];
          rem /= out_shape[d];
        }
        for (size_t d = 0; d < rank; ++d) {
          src += idx[d] * in.tensor().strides()[static_cast<size_t>(c.dims[d])];
        }
        ASSERT_EQ(std::memcmp(op + j * es, ip + src * es, es), 0)
            << "element " << j << " of a permute of rank " << rank;
      }
    }
  }
}

}  // namespace
