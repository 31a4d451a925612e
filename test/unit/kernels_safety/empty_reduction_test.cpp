// Reductions over tensors with an empty dim. When the kept dim is empty the
// result is empty and nothing may be read or written (the reduction loop
// used to run once anyway: one element read past the 0-byte input, one
// written into the 0-element out). When the reduced dim is empty the result
// is PyTorch's: the identity (sum 0, any false, all true), NaN (mean, var),
// or an error where there is no identity (amax, amin, argmax).
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "safety_util.h"

namespace kernel_safety {
namespace {

// Reduces self over dim 1 into out (keepdim false) through one operator.
struct Reduction {
  const char* name;
  ScalarType out_dtype;
  std::function<Error(const ExactTensor& self, const ExactTensor& out)> run;
};

Error dims_keepdim(const char* op, const ExactTensor& self, const ExactTensor& out) {
  IntList dims({1});
  EValue es(self.tensor()), keep(false), eo(out.tensor());
  return call(op, {&es, &dims.ev, &keep, &eo, &eo});
}

Error dims_keepdim_dtype(const char* op, const ExactTensor& self, const ExactTensor& out) {
  IntList dims({1});
  EValue es(self.tensor()), keep(false), none, eo(out.tensor());
  return call(op, {&es, &dims.ev, &keep, &none, &eo, &eo});
}

std::vector<Reduction> reductions() {
  using std::placeholders::_1;
  using std::placeholders::_2;
  return {
      {"amax", ScalarType::Float, std::bind(dims_keepdim, "aten::amax.out", _1, _2)},
      {"amin", ScalarType::Float, std::bind(dims_keepdim, "aten::amin.out", _1, _2)},
      {"sum", ScalarType::Float, std::bind(dims_keepdim_dtype, "aten::sum.IntList_out", _1, _2)},
      {"mean", ScalarType::Float, std::bind(dims_keepdim_dtype, "aten::mean.out", _1, _2)},
      {"any", ScalarType::Bool, std::bind(dims_keepdim, "aten::any.dims_out", _1, _2)},
      {"all", ScalarType::Bool, std::bind(dims_keepdim, "aten::all.dims_out", _1, _2)},
      {"var", ScalarType::Float,
       [](const ExactTensor& self, const ExactTensor& out) {
         IntList dims({1});
         EValue es(self.tensor()), none, keep(false), eo(out.tensor());
         return call("aten::var.correction_out", {&es, &dims.ev, &none, &keep, &eo, &eo});
       }},
      {"argmax", ScalarType::Long,
       [](const ExactTensor& self, const ExactTensor& out) {
         EValue es(self.tensor()), dim(int64_t{1}), keep(false), eo(out.tensor());
         return call("aten::argmax.out", {&es, &dim, &keep, &eo, &eo});
       }},
  };
}

TEST(KernelSafetyEmptyReduction, EmptyKeptDimGivesAnEmptyResult) {
  for (const Reduction& r : reductions()) {
    SCOPED_TRACE(r.name);
    ExactTensor self(ScalarType::Float, {0, 3}), out(r.out_dtype, {0});
    EXPECT_EQ(r.run(self, out), Error::Ok);
    EXPECT_EQ(out.tensor().numel(), 0);
  }
}

TEST(KernelSafetyEmptyReduction, EmptyReducedDimGivesTheIdentityOrFails) {
  for (const Reduction& r : reductions()) {
    SCOPED_TRACE(r.name);
    ExactTensor self(ScalarType::Float, {3, 0}), out(r.out_dtype, {3});
    const Error err = r.run(self, out);
    const std::string name = r.name;
    if (name == "amax" || name == "amin" || name == "argmax") {
      EXPECT_EQ(err, Error::InvalidArgument);
      continue;
    }
    ASSERT_EQ(err, Error::Ok);
    for (int i = 0; i < 3; ++i) {
      if (name == "sum") {
        EXPECT_EQ(out.data<float>()[i], 0.0f);
      } else if (name == "mean" || name == "var") {
        EXPECT_TRUE(std::isnan(out.data<float>()[i]));
      } else {
        EXPECT_EQ(out.data<bool>()[i], name == "all");
      }
    }
  }
}

// Softmax and cumsum return early on an empty input; this keeps them honest
// with exact-size (0-byte) buffers.
TEST(KernelSafetyEmptyReduction, SoftmaxAndCumsumOverEmptyTensorsWriteNothing) {
  for (const char* op : {"aten::_softmax.out", "aten::_log_softmax.out"}) {
    SCOPED_TRACE(op);
    ExactTensor self(ScalarType::Float, {0, 3}), out(ScalarType::Float, {0, 3});
    EValue es(self.tensor()), dim(int64_t{0}), h2f(false), eo(out.tensor());
    EXPECT_EQ(call(op, {&es, &dim, &h2f, &eo, &eo}), Error::Ok);
  }
  ExactTensor self(ScalarType::Float, {3, 0}), out(ScalarType::Float, {3, 0});
  EValue es(self.tensor()), dim(int64_t{1}), none, eo(out.tensor());
  EXPECT_EQ(call("aten::cumsum.out", {&es, &dim, &none, &eo, &eo}), Error::Ok);
}

}  // namespace
}  // namespace kernel_safety
