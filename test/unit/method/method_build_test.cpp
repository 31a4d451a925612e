// Method load and execution on small programs built in the test: prim ops,
// test kernels, control flow, inputs/outputs, delegates, missing operators
// and malformed indices.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

// step(), reset_execution() and in_progress() are experimental (marked
// deprecated); this file tests them.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include <executorch/runtime/backend/interface.h>

#include "program_builder.h"
#include "test_support.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::ArrayRef;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::Span;
using test::ProgramBuilder;
using test::TensorSpec;

namespace {

class MethodBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::register_test_kernels();
    test::clear_logs();
  }
};

TensorSpec planned_f32(std::vector<int32_t> sizes, uint64_t offset) {
  TensorSpec s;
  s.sizes = std::move(sizes);
  s.mem_id = 1;
  s.offset = offset;
  return s;
}

// ---------------------------------------------------------------- prim ops

TEST_F(MethodBuildTest, PrimOnlyProgramComputesScalars) {
  ProgramBuilder b;
  const int a = b.int_value(7), c = b.int_value(-2), sum = b.int_value(0), prod = b.int_value(0),
            q = b.int_value(0), lt = b.bool_value(false), d = b.double_value(0),
            fl = b.double_value(0);
  b.kernel(b.op("executorch_prim::add", "Scalar"), {a, c, sum});
  b.kernel(b.op("executorch_prim::mul", "Scalar"), {sum, c, prod});
  b.kernel(b.op("executorch_prim::floordiv", "Scalar"), {a, c, q});
  b.kernel(b.op("executorch_prim::lt", "Scalar"), {prod, a, lt});
  b.kernel(b.op("executorch_prim::truediv", "Scalar"), {a, c, d});
  b.kernel(b.op("executorch_prim::sym_float", "Scalar"), {q, fl});
  b.outputs = {sum, prod, q, lt, d, fl};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_EQ(l->method->get_output(0).toInt(), 5);
  EXPECT_EQ(l->method->get_output(1).toInt(), -10);
  EXPECT_EQ(l->method->get_output(2).toInt(), -4);  // Python floor division
  EXPECT_TRUE(l->method->get_output(3).toBool());
  EXPECT_DOUBLE_EQ(l->method->get_output(4).toDouble(), -3.5);
  EXPECT_DOUBLE_EQ(l->method->get_output(5).toDouble(), -4.0);
}

TEST_F(MethodBuildTest, PrimOpWrongArityFailsExecution) {
  ProgramBuilder b;
  const int a = b.int_value(1);
  b.kernel(b.op("executorch_prim::add", "Scalar"), {a, a});
  b.outputs = {a};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  EXPECT_EQ(l->method->execute(), Error::InvalidProgram);
}

TEST_F(MethodBuildTest, SymSizeAndEtViewFollowInputShape) {
  ProgramBuilder b;
  TensorSpec x = planned_f32({4, 3}, 0);
  x.dynamism = 1;  // DYNAMIC_BOUND
  const int xi = b.tensor(x);
  const int zero = b.int_value(0), n = b.int_value(0), three = b.int_value(3),
            numel = b.int_value(0);
  const int size_list = b.int_list({n, three});
  TensorSpec v;
  v.sizes = {4, 3};
  v.dynamism = 1;
  const int vi = b.tensor(v);
  b.kernel(b.op("aten::sym_size", "int"), {xi, zero, n});
  b.kernel(b.op("executorch_prim::et_view", "default"), {xi, size_list, vi});
  b.kernel(b.op("aten::sym_numel", ""), {vi, numel});
  b.inputs = {xi};
  b.outputs = {vi, n, numel};
  b.buffer_sizes = {0, 48};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  float data[6] = {1, 2, 3, 4, 5, 6};
  int32_t sizes[2] = {2, 3};
  TensorImpl impl(ScalarType::Float, 2, sizes, data);
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&impl)), 0), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_EQ(l->method->get_output(1).toInt(), 2);
  EXPECT_EQ(l->method->get_output(2).toInt(), 6);
  const Tensor& out = l->method->get_output(0).toTensor();
  EXPECT_EQ(out.size(0), 2);
  EXPECT_EQ(out.const_data_ptr<float>()[5], 6.0f);
}

// ---------------------------------------------------------------- kernels

// out = (x + y) * x, planned tensors; y is a constant.
std::vector<uint8_t> add_mul_program(bool constant_y) {
  ProgramBuilder b;
  const int x = b.tensor(planned_f32({2, 3}, 0));
  int y;
  static const float kY[6] = {10, 20, 30, 40, 50, 60};
  if (constant_y) {
    TensorSpec ys;
    ys.sizes = {2, 3};
    ys.data_buffer_idx = b.constant(kY, sizeof(kY));
    y = b.tensor(ys);
  } else {
    y = b.tensor(planned_f32({2, 3}, 32));
  }
  const int alpha = b.int_value(1);
  const int tmp = b.tensor(planned_f32({2, 3}, 64));
  const int out = b.tensor(planned_f32({2, 3}, 96));
  b.kernel(b.op("aten::add", "out"), {x, y, alpha, tmp, tmp});
  b.kernel(b.op("aten::mul", "out"), {tmp, x, out, out});
  b.inputs = constant_y ? std::vector<int32_t>{x} : std::vector<int32_t>{x, y};
  b.outputs = {out};
  b.buffer_sizes = {0, 128};
  return b.finish();
}

TEST_F(MethodBuildTest, TestKernelsRunAndMatch) {
  auto l = test::load(add_mul_program(false));
  ASSERT_EQ(l->method_error, Error::Ok);
  float xd[6] = {1, 2, 3, 4, 5, 6}, yd[6] = {1, 1, 1, 2, 2, 2};
  int32_t sizes[2] = {2, 3};
  TensorImpl xi(ScalarType::Float, 2, sizes, xd), yi(ScalarType::Float, 2, sizes, yd);
  EXPECT_EQ(l->method->execute(), Error::InvalidArgument);  // inputs not set
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&xi)), 0), Error::Ok);
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&yi)), 1), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EValue outs[3];
  ASSERT_EQ(l->method->get_outputs(outs, 3), Error::Ok);
  EXPECT_TRUE(outs[1].isNone());
  const float* o = outs[0].toTensor().const_data_ptr<float>();
  for (int i = 0; i < 6; ++i) {
    EXPECT_FLOAT_EQ(o[i], (xd[i] + yd[i]) * xd[i]);
  }
  // Inputs were copied into planned memory: changing the caller's data after
  // set_input has no effect; a second execute gives the same result.
  xd[0] = 100;
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_FLOAT_EQ(l->method->get_output(0).toTensor().const_data_ptr<float>()[0], 2.0f);
  EXPECT_EQ(l->method->get_outputs(outs, 0), Error::InvalidArgument);
}

TEST_F(MethodBuildTest, ConstantTensorsComeFromTheProgram) {
  auto l = test::load(add_mul_program(true));
  ASSERT_EQ(l->method_error, Error::Ok);
  float xd[6] = {1, 2, 3, 4, 5, 6};
  int32_t sizes[2] = {2, 3};
  TensorImpl xi(ScalarType::Float, 2, sizes, xd);
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&xi)), 0), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_FLOAT_EQ(l->method->get_output(0).toTensor().const_data_ptr<float>()[5], 66.0f * 6);
}

TEST_F(MethodBuildTest, SetInputChecksDtypeShapeAndIndex) {
  auto l = test::load(add_mul_program(false));
  ASSERT_EQ(l->method_error, Error::Ok);
  double dd[6] = {};
  float fd[8] = {};
  int32_t s23[2] = {2, 3}, s24[2] = {2, 4};
  TensorImpl di(ScalarType::Double, 2, s23, dd), fi(ScalarType::Float, 2, s24, fd);
  EXPECT_EQ(l->method->set_input(EValue(Tensor(&di)), 0), Error::InvalidArgument);
  EXPECT_EQ(l->method->set_input(EValue(Tensor(&fi)), 0), Error::NotSupported);
  EXPECT_EQ(l->method->set_input(EValue(Tensor(&fi)), 2), Error::InvalidArgument);
  EXPECT_EQ(l->method->set_input(EValue(int64_t(3)), 0), Error::InvalidArgument);
  EXPECT_EQ(l->method->inputs_size(), 2u);
  EXPECT_EQ(l->method->outputs_size(), 1u);
}

TEST_F(MethodBuildTest, UnplannedInputIsSharedAndOutputPointerSettable) {
  ProgramBuilder b;
  TensorSpec x;
  x.sizes = {3};
  TensorSpec o;
  o.sizes = {3};
  const int xi = b.tensor(x), alpha = b.int_value(1), oi = b.tensor(o);
  b.kernel(b.op("aten::add", "out"), {xi, xi, alpha, oi, oi});
  b.inputs = {xi};
  b.outputs = {oi};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  float xd[3] = {1, 2, 3}, od[3] = {};
  int32_t s[1] = {3};
  TensorImpl impl(ScalarType::Float, 1, s, xd);
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&impl)), 0), Error::Ok);
  EXPECT_EQ(l->method->set_output_data_ptr(od, 4, 0), Error::InvalidArgument);
  ASSERT_EQ(l->method->set_output_data_ptr(od, sizeof(od), 0), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_FLOAT_EQ(od[2], 6.0f);
  xd[2] = 10;  // shared, not copied
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_FLOAT_EQ(od[2], 20.0f);
}

TEST_F(MethodBuildTest, PlannedOutputRejectsSetOutputDataPtr) {
  auto l = test::load(add_mul_program(false));
  ASSERT_EQ(l->method_error, Error::Ok);
  float buf[6];
  EXPECT_EQ(l->method->set_output_data_ptr(buf, sizeof(buf), 0), Error::InvalidState);
}

TEST_F(MethodBuildTest, PrimInputsMustEqualTracedValues) {
  ProgramBuilder b;
  const int n = b.int_value(3), f = b.bool_value(true), d = b.double_value(0.5),
            s = b.string_value("abc"), none = b.null_value();
  b.inputs = {n, f, d, s, none};
  b.outputs = {n};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  auto& m = *l->method;
  EXPECT_EQ(m.set_input(EValue(int64_t(3)), 0), Error::Ok);
  EXPECT_EQ(m.set_input(EValue(int64_t(4)), 0), Error::InvalidArgument);
  EXPECT_EQ(m.set_input(EValue(false), 1), Error::InvalidArgument);
  EXPECT_EQ(m.set_input(EValue(true), 1), Error::Ok);
  EXPECT_EQ(m.set_input(EValue(0.50001), 2), Error::Ok);
  EXPECT_EQ(m.set_input(EValue(0.6), 2), Error::InvalidArgument);
  EXPECT_EQ(m.set_input(EValue(1.0), 0), Error::InvalidArgument);  // kind
  EXPECT_EQ(m.set_input(EValue(), 4), Error::Ok);
  std::vector<EValue> all = {EValue(int64_t(3)), EValue(true), EValue(0.5)};
  EXPECT_EQ(m.set_inputs(ArrayRef<EValue>(all.data(), all.size())), Error::InvalidArgument);
}

// ---------------------------------------------------------------- control flow

TEST_F(MethodBuildTest, JumpFalseMoveAndFree) {
  ProgramBuilder b;
  const int one = b.int_value(1), counter = b.int_value(0), limit = b.int_value(5),
            cond = b.bool_value(false), result = b.int_value(0);
  const int always_false = b.bool_value(false);
  const int add = b.op("executorch_prim::add", "Scalar");
  const int lt = b.op("executorch_prim::lt", "Scalar");
  // 0: counter += 1; 1: cond = counter < limit; 2: if !cond goto 4;
  // 3: goto 0 (constant false); 4: result = counter
  b.kernel(add, {counter, one, counter});
  b.kernel(lt, {counter, limit, cond});
  b.jump_false(cond, 4);
  b.jump_false(always_false, 0);
  b.move(counter, result);
  b.outputs = {result};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_EQ(l->method->get_output(0).toInt(), 5);
  EXPECT_EQ(l->method->method_meta().num_instructions(), 5u);
}

TEST_F(MethodBuildTest, InstructionLimitStopsInfiniteLoop) {
  ProgramBuilder b;
  const int f = b.bool_value(false);
  b.jump_false(f, 0);
  b.outputs = {f};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  EXPECT_EQ(l->method->execute(), Error::InvalidProgram);
  EXPECT_NE(test::logs().find("instructions"), std::string::npos);
  EXPECT_FALSE(l->method->in_progress());
}

TEST_F(MethodBuildTest, StepAndResetExecution) {
  ProgramBuilder b;
  const int a = b.int_value(1), c = b.int_value(0);
  const int add = b.op("executorch_prim::add", "Scalar");
  b.kernel(add, {a, a, c});
  b.new_chain();
  b.kernel(add, {c, a, c});
  b.outputs = {c};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  auto& m = *l->method;
  EXPECT_EQ(m.reset_execution(), Error::InvalidState);
  EXPECT_EQ(m.step(), Error::Ok);
  EXPECT_TRUE(m.in_progress());
  EXPECT_EQ(m.execute(), Error::InvalidState);
  EXPECT_EQ(m.step(), Error::Ok);
  EXPECT_EQ(m.step(), Error::EndOfMethod);
  EXPECT_EQ(m.get_output(0).toInt(), 3);
  EXPECT_EQ(m.reset_execution(), Error::Ok);
  EXPECT_EQ(m.execute(), Error::Ok);
  EXPECT_EQ(m.get_output(0).toInt(), 3);
}

TEST_F(MethodBuildTest, FreeCallOnNonTensorIsInvalidType) {
  ProgramBuilder b;
  const int a = b.int_value(1);
  b.free_call(a);
  b.outputs = {a};
  auto l = test::load(b.finish());
  // Rejected at load by program validation, or at run time by the Method.
  if (l->method_error == Error::Ok) {
    EXPECT_EQ(l->method->execute(), Error::InvalidType);
  } else {
    EXPECT_EQ(l->method_error, Error::InvalidProgram);
  }
}

TEST_F(MethodBuildTest, JumpFalseOnIntIsInvalidProgram) {
  ProgramBuilder b;
  const int a = b.int_value(1);
  b.jump_false(a, 0);
  b.outputs = {a};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  EXPECT_EQ(l->method->execute(), Error::InvalidProgram);
}

// ---------------------------------------------------------------- lists

TEST_F(MethodBuildTest, ListValuesParse) {
  ProgramBuilder b;
  TensorSpec t;
  t.sizes = {2};
  const int t0 = b.tensor(t), none = b.null_value();
  const int tl = b.tensor_list({t0, t0});
  const int otl = b.optional_tensor_list({t0, -1, none});
  const int dl = b.double_list({1.5, 2.5});
  const int bl = b.bool_list({1, 0});
  b.outputs = {tl, otl, dl, bl};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  EXPECT_EQ(l->method->get_output(0).toTensorList().size(), 2u);
  auto opt = l->method->get_output(1).toListOptionalTensor();
  ASSERT_EQ(opt.size(), 3u);
  EXPECT_TRUE(opt[0].has_value());
  EXPECT_FALSE(opt[1].has_value());
  EXPECT_FALSE(opt[2].has_value());
  EXPECT_DOUBLE_EQ(l->method->get_output(2).toDoubleList()[1], 2.5);
  EXPECT_FALSE(l->method->get_output(3).toBoolList()[1]);
}

// ---------------------------------------------------------------- missing ops

TEST_F(MethodBuildTest, AllMissingOperatorsAreReported) {
  ProgramBuilder b;
  const int a = b.int_value(1);
  b.kernel(b.op("test_missing::first", "out"), {a});
  b.kernel(b.op("executorch_prim::add", "Scalar"), {a, a, a});
  b.kernel(b.op("test_missing::second", ""), {a});
  b.outputs = {a};
  auto l = test::load(b.finish());
  EXPECT_EQ(l->method_error, Error::OperatorMissing);
  const std::string log = test::logs();
  EXPECT_NE(log.find("test_missing::first.out"), std::string::npos) << log;
  EXPECT_NE(log.find("test_missing::second"), std::string::npos) << log;
}

// ---------------------------------------------------------------- delegates

struct CountingBackend final : public BackendInterface {
  mutable int inits = 0, executes = 0, destroys = 0;
  mutable size_t spec_count = 0;
  bool is_available() const override {
    return true;
  }
  Result<DelegateHandle*> init(BackendInitContext& ctx, FreeableBuffer* processed,
                               ArrayRef<CompileSpec> specs) const override {
    ++inits;
    spec_count = specs.size();
    if (processed->size() != 4 || ctx.get_method_name() == nullptr) {
      return Error::DelegateInvalidCompatibility;
    }
    return reinterpret_cast<DelegateHandle*>(const_cast<int*>(&inits));
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*> args) const override {
    ++executes;
    // args: [in Int, out Int]: out = in * 10
    *args[1] = EValue(args[0]->toInt() * 10);
    return Error::Ok;
  }
  void destroy(DelegateHandle*) const override {
    ++destroys;
  }
};

CountingBackend g_backend;
const Error g_backend_registered =
    executorch::runtime::register_backend({"MethodTestCountingBackend", &g_backend});

TEST_F(MethodBuildTest, DelegateInitExecuteDestroy) {
  ASSERT_EQ(g_backend_registered, Error::Ok);
  ProgramBuilder b;
  const int in = b.int_value(4), out = b.int_value(0);
  b.delegate_call(b.delegate("MethodTestCountingBackend", {1, 2, 3, 4}), {in, out});
  b.outputs = {out};
  const int destroys_before = g_backend.destroys;
  {
    auto l = test::load(b.finish());
    ASSERT_EQ(l->method_error, Error::Ok);
    EXPECT_EQ(g_backend.spec_count, 1u);
    ASSERT_EQ(l->method->execute(), Error::Ok);
    EXPECT_EQ(l->method->get_output(0).toInt(), 40);
    EXPECT_TRUE(l->method->method_meta().uses_backend("MethodTestCountingBackend"));
  }
  EXPECT_EQ(g_backend.destroys, destroys_before + 1);
}

TEST_F(MethodBuildTest, UnregisteredBackendIsNotFoundAndNamed) {
  ProgramBuilder b;
  const int in = b.int_value(4);
  b.delegate_call(b.delegate("XnnpackBackend", {1, 2, 3, 4}), {in});
  b.outputs = {in};
  auto l = test::load(b.finish());
  EXPECT_EQ(l->method_error, Error::NotFound);
  EXPECT_NE(test::logs().find("XnnpackBackend"), std::string::npos);
}

TEST_F(MethodBuildTest, DelegateInitErrorIsReturnedAsIs) {
  ProgramBuilder b;
  const int in = b.int_value(4);
  b.delegate_call(b.delegate("MethodTestCountingBackend", {1, 2}), {in});
  b.outputs = {in};
  auto l = test::load(b.finish());
  EXPECT_EQ(l->method_error, Error::DelegateInvalidCompatibility);
}

// ---------------------------------------------------------------- malformed

// Program load validates every plan before Method load sees it, so most
// cases fail there with InvalidProgram naming the field; the Method repeats
// the checks it depends on.
struct Malformed {
  const char* what;
  Error expected;
  std::function<void(ProgramBuilder&)> build;
};

class MalformedTest : public ::testing::TestWithParam<int> {};

std::vector<Malformed> malformed_cases() {
  return {
      {"kernel arg out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         const int a = b.int_value(1);
         b.kernel(b.op("executorch_prim::add", "Scalar"), {a, a, 99});
       }},
      {"negative kernel arg", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         const int a = b.int_value(1);
         b.kernel(b.op("executorch_prim::add", "Scalar"), {a, -1, a});
       }},
      {"op_index out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         const int a = b.int_value(1);
         b.kernel(5, {a, a, a});
       }},
      {"move index out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         const int a = b.int_value(1);
         b.move(a, 42);
       }},
      {"jump cond out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) { b.jump_false(7, 0); }},
      {"free index out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) { b.free_call(-3); }},
      {"delegate index out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) { b.delegate_call(2, {}); }},
      {"unknown instruction kind", Error::InvalidProgram,
       [](ProgramBuilder& b) { b.raw_instruction(17); }},
      {"unknown value kind", Error::InvalidProgram, [](ProgramBuilder& b) { b.raw_value(42); }},
      {"int list item out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         b.int_list({0, 100});
       }},
      {"tensor list forward reference", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         const int l = b.tensor_list({1});
         (void)l;
         TensorSpec t;
         t.sizes = {1};
         b.tensor(t);
       }},
      {"tensor list of non-tensor", Error::InvalidProgram,
       [](ProgramBuilder& b) { b.tensor_list({b.int_value(1)}); }},
      {"rank 17", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         TensorSpec t;
         t.sizes = std::vector<int32_t>(17, 1);
         b.tensor(t);
       }},
      {"negative size", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         TensorSpec t;
         t.sizes = {2, -1};
         b.tensor(t);
       }},
      {"dim order not a permutation", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         TensorSpec t;
         t.sizes = {2, 2};
         t.dim_order = {0, 0};
         b.tensor(t);
       }},
      {"dim order length", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         TensorSpec t;
         t.sizes = {2, 2};
         t.dim_order = {0};
         b.tensor(t);
       }},
      {"storage offset", Error::NotSupported,
       [](ProgramBuilder& b) {
         TensorSpec t;
         t.sizes = {2};
         t.storage_offset = 1;
         b.tensor(t);
       }},
      {"dynamic unbound", Error::NotSupported,
       [](ProgramBuilder& b) {
         TensorSpec t;
         t.sizes = {2};
         t.dynamism = 2;
         b.tensor(t);
       }},
      {"invalid dtype", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         TensorSpec t;
         t.sizes = {2};
         t.dtype = 30;
         b.tensor(t);
       }},
      {"memory id out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         TensorSpec t = planned_f32({2}, 0);
         t.mem_id = 0;
         t.data_buffer_idx = 0;
         // mem_id 0 means "not planned" in the builder: force allocation info
         // through a huge id instead.
         t.mem_id = 0xFFFFFFFFu;
         b.tensor(t);
         b.buffer_sizes = {0, 16};
       }},
      {"planned beyond arena", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         b.tensor(planned_f32({8}, 8));
         b.buffer_sizes = {0, 16};
       }},
      {"constant index out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) {
         TensorSpec t;
         t.sizes = {2};
         t.data_buffer_idx = 9;
         b.tensor(t);
       }},
      {"output index out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) { b.outputs = {3}; }},
      {"input index out of range", Error::InvalidProgram,
       [](ProgramBuilder& b) { b.inputs = {-1}; }},
      {"external constant without data map", Error::InvalidState,
       [](ProgramBuilder& b) {
         TensorSpec t;
         t.sizes = {2};
         t.external = true;
         t.fqn = "w";
         b.tensor(t);
       }},
  };
}

TEST_P(MalformedTest, FailsCleanly) {
  test::register_test_kernels();
  const Malformed c = malformed_cases()[static_cast<size_t>(GetParam())];
  ProgramBuilder b;
  c.build(b);
  auto l = test::load(b.finish());
  const Error got = l->program_error != Error::Ok ? l->program_error : l->method_error;
  EXPECT_EQ(got, c.expected) << c.what;
  EXPECT_EQ(l->method, nullptr) << c.what;
}

INSTANTIATE_TEST_SUITE_P(Method, MalformedTest,
                         ::testing::Range(0, static_cast<int>(malformed_cases().size())));

// ------------------------------------------- program validation's rules hold

// Validation lets a non-static plan input carry placeholder sizes (the
// caller gives the shape); Method load follows that rule instead of refusing
// the negative size again. The placeholder loads as an empty shape.
TEST_F(MethodBuildTest, DynamicInputWithPlaceholderSizesLoadsEmpty) {
  for (const auto verification :
       {executorch::runtime::Program::Verification::Minimal,
        executorch::runtime::Program::Verification::InternalConsistency}) {
    ProgramBuilder b;
    TensorSpec x;
    x.sizes = {2, -1};
    x.dynamism = 1;  // DYNAMIC_BOUND, bound to the caller's buffer
    const int xi = b.tensor(x);
    b.inputs = {xi};
    b.outputs = {xi};
    auto l = test::load(b.finish(), "forward", nullptr, verification);
    ASSERT_EQ(l->program_error, Error::Ok) << test::logs();
    ASSERT_EQ(l->method_error, Error::Ok) << test::logs();
    const Tensor& in = l->method->get_output(0).toTensor();
    ASSERT_EQ(in.dim(), 2);
    EXPECT_EQ(in.size(0), 0);
    EXPECT_EQ(in.size(1), 0);
    EXPECT_EQ(in.nbytes(), 0u);
    // The empty placeholder bounds the shape: a non-empty input is refused.
    float data[2] = {1, 2};
    int32_t sizes[2] = {2, 1};
    TensorImpl impl(ScalarType::Float, 2, sizes, data);
    EXPECT_NE(l->method->set_input(EValue(Tensor(&impl)), 0), Error::Ok);
  }
}

// Validation reads an absent delegates vector as "no delegates", like every
// other optional vector; Method load agrees.
TEST_F(MethodBuildTest, PlanWithoutDelegatesVectorLoads) {
  ProgramBuilder b;
  const int a = b.int_value(2), c = b.int_value(3), sum = b.int_value(0);
  b.kernel(b.op("executorch_prim::add", "Scalar"), {a, c, sum});
  b.outputs = {sum};
  b.omit_delegates = true;
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok) << test::logs();
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_EQ(l->method->get_output(0).toInt(), 5);
}

}  // namespace
