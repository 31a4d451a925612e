// Execution-time memory safety of crafted programs: each test builds a
// program (or drives the Method API) the way a hostile .pte could, and checks
// that the method refuses it with a typed error instead of letting a kernel
// touch memory it does not own. The load-time rules themselves are covered
// case by case in test/unit/program/malformed_test.cpp; these tests show the
// end-to-end behaviour.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/tensor_layout.h>

// get_inputs() is deprecated; one test uses it because it marks inputs set.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include <executorch/extension/kernel_util/make_boxed_from_unboxed_functor.h>

#include "program_builder.h"
#include "test_support.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::TensorLayout;
using test::ProgramBuilder;
using test::TensorSpec;

namespace {

class ExecutionSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    test::register_test_kernels();
    test::clear_logs();
  }
};

constexpr int8_t kDynamicBound = 1;

TensorSpec f32(std::vector<int32_t> sizes, uint32_t mem_id = 0, uint64_t offset = 0) {
  TensorSpec s;
  s.sizes = std::move(sizes);
  s.mem_id = mem_id;
  s.offset = offset;
  return s;
}

TensorSpec dynamic(TensorSpec s) {
  s.dynamism = kDynamicBound;
  return s;
}

bool logged(const std::string& needle) {
  return test::logs().find(needle) != std::string::npos;
}

/// Loading `b` fails with InvalidProgram and a log line containing `needle`.
void expect_refused_at_load(const ProgramBuilder& b, const std::string& needle) {
  auto l = test::load(b.finish());
  EXPECT_EQ(l->method_error, Error::InvalidProgram);
  EXPECT_TRUE(logged(needle)) << "log lacks '" << needle << "':\n" << test::logs();
}

/// A constant float[3] tensor {1, 2, 3}; returns its value index.
int constant_f32x3(ProgramBuilder& b) {
  static const float kData[3] = {1, 2, 3};
  TensorSpec cs = f32({3});
  cs.data_buffer_idx = b.constant(kData, sizeof(kData));
  return b.tensor(cs);
}

/// Binds the float[3] input {1, 2, 3} (the caller's memory, kept alive by
/// the fixture) to input 0.
struct Float3Input {
  float data[3] = {1, 2, 3};
  int32_t sizes[1] = {3};
  TensorImpl impl{ScalarType::Float, 1, sizes, data};
  Error bind(executorch::runtime::Method& m) {
    return m.set_input(EValue(Tensor(&impl)), 0);
  }
};

// ------------------------------------------------- storage of every tensor

// A tensor with neither planned nor constant storage that no one binds would
// reach the kernel with a null data pointer (and the kernel would read at an
// offset from address 0 that the file chooses).
TEST_F(ExecutionSafety, IntermediateWithoutStorageIsRefusedAtLoad) {
  ProgramBuilder b;
  const int x = b.tensor(f32({3}, 1, 0)), alpha = b.int_value(1);
  const int unbacked = b.tensor(f32({3}));
  const int out = b.tensor(f32({3}, 1, 16));
  b.kernel(b.op("aten::add", "out"), {x, unbacked, alpha, out, out});
  b.inputs = {x};
  b.outputs = {out};
  b.buffer_sizes = {0, 32};
  expect_refused_at_load(b, "value 2 is a tensor without storage");
}

TEST_F(ExecutionSafety, UnboundUnplannedOutputStopsExecuteNamingTheValue) {
  ProgramBuilder b;
  const int x = b.tensor(f32({3}, 1, 0)), alpha = b.int_value(1);
  const int out = b.tensor(f32({3}));
  b.kernel(b.op("aten::add", "out"), {x, x, alpha, out, out});
  b.inputs = {x};
  b.outputs = {out};
  b.buffer_sizes = {0, 16};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  Float3Input input;
  ASSERT_EQ(input.bind(*l->method), Error::Ok);
  EXPECT_EQ(l->method->execute(), Error::InvalidState);
  EXPECT_TRUE(logged("output 0 (value 2)")) << test::logs();

  // Bound, it runs.
  float od[3] = {};
  ASSERT_EQ(l->method->set_output_data_ptr(od, sizeof(od), 0), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_FLOAT_EQ(od[2], 6.0f);
}

TEST_F(ExecutionSafety, InputMarkedSetWithoutDataStopsExecute) {
  ProgramBuilder b;
  const int x = b.tensor(f32({3})), alpha = b.int_value(1);
  const int out = b.tensor(f32({3}, 1, 0));
  b.kernel(b.op("aten::add", "out"), {x, x, alpha, out, out});
  b.inputs = {x};
  b.outputs = {out};
  b.buffer_sizes = {0, 16};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  // get_inputs() counts as setting every input, but binds no data.
  EValue inputs[1];
  ASSERT_EQ(l->method->get_inputs(inputs, 1), Error::Ok);
  EXPECT_EQ(l->method->execute(), Error::InvalidState);
  EXPECT_TRUE(logged("input 0 (value 0)")) << test::logs();
}

// ------------------------------------------------- capacity vs storage

// The caller's buffer for an unplanned input only needs to hold the shape it
// is given; a kernel that writes the input may resize it up to its capacity,
// so such an input must be bound to a buffer of that capacity.
TEST_F(ExecutionSafety, KernelWritingAnUnplannedInputNeedsABufferOfItsCapacity) {
  ProgramBuilder b;
  const int x = b.tensor(dynamic(f32({100})));
  const int y = b.tensor(f32({100}, 1, 0)), alpha = b.int_value(1);
  b.kernel(b.op("aten::add", "out"), {y, y, alpha, x, x});
  b.inputs = {x};
  b.outputs = {y};
  b.buffer_sizes = {0, 400};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok) << test::logs();
  EXPECT_TRUE(l->method->input_is_written(0));

  Float3Input small;  // add.out would resize x to 100 floats
  EXPECT_EQ(small.bind(*l->method), Error::InvalidArgument);
  EXPECT_TRUE(logged("input 0 is written in place by the method and may grow to 400 bytes"))
      << test::logs();

  std::vector<float> full(100, 1.0f);
  int32_t sizes[1] = {100};
  TensorImpl impl(ScalarType::Float, 1, sizes, full.data());
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&impl)), 0), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_EQ(full[0], 0.0f);  // y (zero-filled) + y, written into the caller's buffer
  EXPECT_EQ(full[99], 0.0f);

  // A buffer bound around set_input's check is refused when the method runs.
  float other[3] = {};
  l->method->mutable_input(0).toTensor().unsafeGetTensorImpl()->set_data(other);
  EXPECT_EQ(l->method->execute(), Error::InvalidState);
  EXPECT_TRUE(logged("is written in place and was not bound with set_input")) << test::logs();
}

TEST_F(ExecutionSafety, AnInputTheMethodOnlyReadsIsNotWritten) {
  ProgramBuilder b;
  const int x = b.tensor(dynamic(f32({100})));
  const int y = b.tensor(dynamic(f32({100}, 1, 0))), alpha = b.int_value(1);
  b.kernel(b.op("aten::add", "out"), {x, x, alpha, y, y});
  b.inputs = {x};
  b.outputs = {y};
  b.buffer_sizes = {0, 400};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok) << test::logs();
  EXPECT_FALSE(l->method->input_is_written(0));
  EXPECT_FALSE(l->method->input_is_written(1));  // out of range
  Float3Input small;
  ASSERT_EQ(small.bind(*l->method), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_FLOAT_EQ(l->method->get_output(0).toTensor().const_data_ptr<float>()[2], 6.0f);
}

// et_view points its result at the viewed tensor's data: a result that could
// grow beyond that data must not exist.
TEST_F(ExecutionSafety, EtViewResultLargerThanTheViewedTensorIsRefusedAtLoad) {
  ProgramBuilder b;
  const int self = b.tensor(f32({2}, 1, 0));
  const int two = b.int_value(2);
  const int size = b.int_list({two});
  const int view = b.tensor(dynamic(f32({100})));
  const int alpha = b.int_value(1);
  const int out = b.tensor(f32({2}, 1, 8));
  b.kernel(b.op("executorch_prim::et_view", "default"), {self, size, view});
  b.kernel(b.op("aten::add", "out"), {view, view, alpha, out, out});
  b.inputs = {self};
  b.outputs = {out};
  b.buffer_sizes = {0, 16};
  expect_refused_at_load(b, "can hold 400 bytes, more than the 8 bytes");
}

TEST_F(ExecutionSafety, KernelWritingAnEtViewResultIsRefusedAtLoad) {
  ProgramBuilder b;
  const int self = b.tensor(f32({4}, 1, 0));
  const int four = b.int_value(4);
  const int size = b.int_list({four});
  const int view = b.tensor(dynamic(f32({4})));
  const int alpha = b.int_value(1);
  b.kernel(b.op("executorch_prim::et_view", "default"), {self, size, view});
  b.kernel(b.op("aten::add", "out"), {self, self, alpha, view, view});
  b.inputs = {self};
  b.outputs = {self};
  b.buffer_sizes = {0, 16};
  expect_refused_at_load(b, "writes value 3, an et_view result");
}

// A dynamic output can shrink during a run; its next buffer must still hold
// the capacity the kernel may resize it back to.
TEST_F(ExecutionSafety, OutputBufferMustCoverTheCapacityNotTheCurrentShape) {
  ProgramBuilder b;
  const int x = b.tensor(dynamic(f32({4}, 1, 0))), alpha = b.int_value(1);
  const int out = b.tensor(dynamic(f32({4})));
  b.kernel(b.op("aten::add", "out"), {x, x, alpha, out, out});
  b.inputs = {x};
  b.outputs = {out};
  b.buffer_sizes = {0, 16};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  float od[4] = {};
  ASSERT_EQ(l->method->set_output_data_ptr(od, sizeof(od), 0), Error::Ok);
  float xd[2] = {1, 2};
  int32_t s[1] = {2};
  TensorImpl xi(ScalarType::Float, 1, s, xd);
  ASSERT_EQ(l->method->set_input(EValue(Tensor(&xi)), 0), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  ASSERT_EQ(l->method->get_output(0).toTensor().numel(), 2);
  float small[2] = {};
  EXPECT_EQ(l->method->set_output_data_ptr(small, sizeof(small), 0), Error::InvalidArgument);
  EXPECT_TRUE(logged("needs 16 bytes (its capacity)")) << test::logs();
}

// ------------------------------------------------- constants are read-only

TEST_F(ExecutionSafety, ConstantAsKernelOutputIsRefusedAtLoad) {
  ProgramBuilder b;
  const int c = constant_f32x3(b);
  const int x = b.tensor(f32({3}, 1, 0)), alpha = b.int_value(1);
  b.kernel(b.op("aten::add", "out"), {x, x, alpha, c, c});
  b.inputs = {x};
  b.outputs = {x};
  b.buffer_sizes = {0, 16};
  expect_refused_at_load(b, "writes value 0, a constant tensor");
}

// A hand-written boxed kernel: nothing records what it writes, so the
// position rule applies (a list in the return slot is written item by item).
void unrecorded_list_out(executorch::runtime::KernelRuntimeContext& ctx,
                         executorch::runtime::Span<EValue*> args) {
  (void)args;
  ctx.fail(Error::NotSupported);  // never reached: the program is refused
}
const Error unrecorded_registered = executorch::runtime::register_kernel(
    executorch::runtime::Kernel("safety_test::list_out.out", unrecorded_list_out));

TEST_F(ExecutionSafety, ConstantInAWrittenListIsRefusedAtLoad) {
  ProgramBuilder b;
  const int c = constant_f32x3(b);
  const int x = b.tensor(f32({3}, 1, 0)), y = b.tensor(f32({3}, 1, 16));
  const int outs = b.tensor_list({y, c});
  b.kernel(b.op("safety_test::list_out", "out"), {x, outs, outs});
  b.inputs = {x};
  b.outputs = {y};
  b.buffer_sizes = {0, 32};
  expect_refused_at_load(b,
                         "KernelCall (safety_test::list_out) args[1]: writes value 0, a constant "
                         "tensor (written arguments from the position rule)");
}

// No kernel is registered for an operator: the program loads, and
// load_method fails naming the operator.
TEST_F(ExecutionSafety, OperatorWithoutAKernelLoadsAndFailsAtLoadMethod) {
  ProgramBuilder b;
  const int c = constant_f32x3(b);
  const int x = b.tensor(f32({3}, 1, 0)), y = b.tensor(f32({3}, 1, 16));
  const int outs = b.tensor_list({y, c});
  b.kernel(b.op("test_only::no_kernel", "out"), {x, y, c, outs});
  b.inputs = {x};
  b.outputs = {y};
  b.buffer_sizes = {0, 32};
  auto l = test::load(b.finish(), "forward", nullptr,
                      executorch::runtime::Program::Verification::InternalConsistency);
  EXPECT_EQ(l->program_error, Error::Ok) << test::logs();
  EXPECT_EQ(l->method_error, Error::OperatorMissing);
  EXPECT_TRUE(logged("'test_only::no_kernel.out'")) << test::logs();
}

TEST_F(ExecutionSafety, ConstantAsInPlaceSelfIsRefusedAtLoad) {
  ProgramBuilder b;
  const int c = constant_f32x3(b);
  const int x = b.tensor(f32({3}, 1, 0)), no = b.bool_value(false);
  b.kernel(b.op("aten::copy_", ""), {c, x, no, c});
  b.inputs = {x};
  b.outputs = {x};
  b.buffer_sizes = {0, 16};
  expect_refused_at_load(b, "KernelCall (aten::copy_) args[0]: writes value 0, a constant tensor");
}

// A backend that writes nothing and reports nothing (as a third-party backend
// built against upstream's interface does), and one that reports argument 0 as
// the one it writes.
class SilentBackend final : public executorch::runtime::BackendInterface {
 public:
  explicit SilentBackend(bool report_first) : report_first_(report_first) {}
  bool is_available() const override {
    return true;
  }
  Result<executorch::runtime::DelegateHandle*> init(
      executorch::runtime::BackendInitContext& context, FreeableBuffer*,
      executorch::runtime::ArrayRef<executorch::runtime::CompileSpec>) const override {
    if (report_first_) {
      context.internal_report_written_arg(0);
    }
    return static_cast<executorch::runtime::DelegateHandle*>(nullptr);
  }
  Error execute(executorch::runtime::BackendExecutionContext&, executorch::runtime::DelegateHandle*,
                executorch::runtime::Span<EValue*>) const override {
    return Error::Ok;
  }

 private:
  bool report_first_;
};
SilentBackend silent_backend(false);
SilentBackend reporting_backend(true);
const Error silent_registered =
    executorch::runtime::register_backend({"SafetyTestSilentBackend", &silent_backend});
const Error reporting_registered =
    executorch::runtime::register_backend({"SafetyTestReportingBackend", &reporting_backend});

TEST_F(ExecutionSafety, ConstantAsDelegateOutputIsRefusedAtLoad) {
  ProgramBuilder b;
  const int c = constant_f32x3(b);
  const int x = b.tensor(f32({3}, 1, 0));
  b.delegate_call(b.delegate("SafetyTestSilentBackend", {1, 2, 3, 4}), {x, c});
  b.inputs = {x};
  b.outputs = {x};
  b.buffer_sizes = {0, 16};
  expect_refused_at_load(b,
                         "DelegateCall (SafetyTestSilentBackend) args[1]: writes value 0, a "
                         "constant tensor (written arguments from the position rule)");
}

// Without a report, only the last argument counts as written: a program that
// passes a constant elsewhere to such a backend loads, as upstream's does.
TEST_F(ExecutionSafety, BackendReportingNothingKeepsThePositionRule) {
  ProgramBuilder b;
  const int c = constant_f32x3(b);
  const int x = b.tensor(f32({3}, 1, 0));
  b.delegate_call(b.delegate("SafetyTestSilentBackend", {1, 2, 3, 4}), {c, x});
  b.inputs = {x};
  b.outputs = {x};
  b.buffer_sizes = {0, 16};
  auto l = test::load(b.finish());
  EXPECT_EQ(l->method_error, Error::Ok) << test::logs();
}

TEST_F(ExecutionSafety, DelegateWritesAreTheOnesItsBackendReports) {
  {
    ProgramBuilder b;  // the reported argument 0 is a constant: refused
    const int c = constant_f32x3(b);
    const int x = b.tensor(f32({3}, 1, 0));
    b.delegate_call(b.delegate("SafetyTestReportingBackend", {1}), {c, x});
    b.inputs = {x};
    b.outputs = {x};
    b.buffer_sizes = {0, 16};
    expect_refused_at_load(b,
                           "DelegateCall (SafetyTestReportingBackend) args[0]: writes value 0, a "
                           "constant tensor (written arguments from the backend's report)");
  }
  {
    ProgramBuilder b;  // a constant in the unreported last place: loads
    const int c = constant_f32x3(b);
    const int x = b.tensor(f32({3}, 1, 0));
    b.delegate_call(b.delegate("SafetyTestReportingBackend", {1}), {x, c});
    b.inputs = {x};
    b.outputs = {x};
    b.buffer_sizes = {0, 16};
    auto l = test::load(b.finish());
    EXPECT_EQ(l->method_error, Error::Ok) << test::logs();
  }
  {
    ProgramBuilder b;  // a caller-bound input in the reported place: recorded as written
    const int x = b.tensor(dynamic(f32({100})));
    const int y = b.tensor(f32({3}, 1, 0));
    b.delegate_call(b.delegate("SafetyTestReportingBackend", {1}), {x, y});
    b.inputs = {x};
    b.outputs = {y};
    b.buffer_sizes = {0, 16};
    auto l = test::load(b.finish());
    ASSERT_EQ(l->method_error, Error::Ok) << test::logs();
    EXPECT_TRUE(l->method->input_is_written(0));
    Float3Input small;
    EXPECT_EQ(small.bind(*l->method), Error::InvalidArgument);
  }
}

// A kernel with two outputs, registered through the boxed wrapper: it writes
// 42 into both. Its signature says which arguments it writes, wherever the
// program puts them and whatever the return slot holds.
Tensor& fill_two_out(executorch::runtime::KernelRuntimeContext& ctx, const Tensor& self,
                     Tensor& first, Tensor& second) {
  (void)ctx;
  (void)self;
  for (Tensor* t : {&first, &second}) {
    float* d = t->mutable_data_ptr<float>();
    for (ssize_t i = 0; i < t->numel(); ++i) {
      d[i] = 42;
    }
  }
  return second;
}
EXECUTORCH_LIBRARY(safety_test, "fill_two.out", fill_two_out);

TEST_F(ExecutionSafety, ConstantBoundToAWrittenParameterIsRefusedAtLoad) {
  ProgramBuilder b;
  const int c = constant_f32x3(b);
  const int x = b.tensor(f32({3}, 1, 0)), y = b.tensor(f32({3}, 1, 16));
  b.kernel(b.op("safety_test::fill_two", "out"), {x, c, y, y});
  b.inputs = {x};
  b.outputs = {y};
  b.buffer_sizes = {0, 32};
  expect_refused_at_load(b,
                         "KernelCall (safety_test::fill_two) args[1]: writes value 0, a constant "
                         "tensor (written arguments from the kernel's signature)");
}

// The exporter passes a multi-output call's outputs again in the return slot;
// a crafted call passes None there. The written outputs still come from the
// signature: a caller-bound input in one of them needs a buffer of its capacity.
TEST_F(ExecutionSafety, MultiOutputKernelWithANoneReturnSlotStillWritesItsOutputs) {
  ProgramBuilder b;
  const int x = b.tensor(f32({3}, 1, 0));
  const int in = b.tensor(dynamic(f32({100})));
  const int y = b.tensor(f32({3}, 1, 16)), none = b.null_value();
  b.kernel(b.op("safety_test::fill_two", "out"), {x, in, y, none});
  b.inputs = {in, x};
  b.outputs = {y};
  b.buffer_sizes = {0, 32};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok) << test::logs();
  EXPECT_TRUE(l->method->input_is_written(0));
  EXPECT_FALSE(l->method->input_is_written(1));  // planned: set_input copies
  Float3Input small;
  EXPECT_EQ(small.bind(*l->method), Error::InvalidArgument);
  EXPECT_TRUE(logged("input 0 is written in place by the method and may grow to 400 bytes"))
      << test::logs();
}

// et_copy_index(copy_to, copy_from, index) writes and grows its first
// argument, not its last (an int).
TEST_F(ExecutionSafety, EtCopyIndexIntoAConstantIsRefusedAtLoad) {
  ProgramBuilder b;
  TensorSpec cs = f32({1, 3});
  static const float kData[3] = {1, 2, 3};
  cs.data_buffer_idx = b.constant(kData, sizeof(kData));
  const int c = b.tensor(cs);
  const int x = b.tensor(f32({3}, 1, 0)), zero = b.int_value(0);
  b.kernel(b.op("executorch_prim::et_copy_index", "tensor"), {c, x, zero});
  b.inputs = {x};
  b.outputs = {x};
  b.buffer_sizes = {0, 16};
  expect_refused_at_load(b,
                         "KernelCall (executorch_prim::et_copy_index) args[0]: writes value 0, a "
                         "constant tensor");
}

// A program naming an operator no kernel implements (a third party's custom
// op) loads; load_method fails for the missing operator, as upstream's runtime
// does, whatever the operator would write.
TEST_F(ExecutionSafety, CustomOperatorWithoutAKernelFailsAtLoadMethodNamingIt) {
  ProgramBuilder b;
  const int c = constant_f32x3(b);
  const int x = b.tensor(f32({3}, 1, 0));
  b.kernel(b.op("etnp::lstm", "out"), {x, c});
  b.inputs = {x};
  b.outputs = {x};
  b.buffer_sizes = {0, 16};
  for (auto v : {executorch::runtime::Program::Verification::Minimal,
                 executorch::runtime::Program::Verification::InternalConsistency}) {
    test::clear_logs();
    auto l = test::load(b.finish(), "forward", nullptr, v);
    EXPECT_EQ(l->program_error, Error::Ok) << test::logs();
    EXPECT_EQ(l->method_error, Error::OperatorMissing);
    EXPECT_TRUE(logged("missing operator: 'etnp::lstm.out'")) << test::logs();
  }
}

// A bool may hold only 0 or 1; kernels (and JumpFalse) read Bool tensors as
// bool, so a Bool constant carrying another byte is refused where it enters.
TEST_F(ExecutionSafety, BoolConstantWithAByteOtherThanZeroOrOneIsRefusedAtLoad) {
  ProgramBuilder b;
  static const uint8_t kBytes[4] = {1, 0, 73, 1};
  TensorSpec cs = f32({4});
  cs.dtype = 11;  // Bool
  cs.data_buffer_idx = b.constant(kBytes, sizeof(kBytes));
  const int c = b.tensor(cs);
  const int x = b.tensor(f32({3}, 1, 0));
  b.jump_false(c, 1);
  b.inputs = {x};
  b.outputs = {x};
  b.buffer_sizes = {0, 16};
  expect_refused_at_load(b, "a Bool tensor whose data holds a byte other than 0 or 1");
}

// set_input copies into a planned-or-constant input's storage; for a
// constant that is the program's (possibly read-only mapped) data.
TEST_F(ExecutionSafety, ConstantPlanInputIsRefusedAtLoad) {
  ProgramBuilder b;
  const int c = constant_f32x3(b);
  b.inputs = {c};
  b.outputs = {c};
  expect_refused_at_load(b, "inputs[0]: value 0 is a constant tensor");
}

// A MoveCall could turn a Null input slot into the constant tensor; the next
// set_input would then treat the slot as a tensor.
TEST_F(ExecutionSafety, MoveOfAConstantIntoANullInputIsRefusedAtLoad) {
  ProgramBuilder b;
  const int c = constant_f32x3(b);
  const int none = b.null_value();
  b.move(c, none);
  b.inputs = {none};
  b.outputs = {c};
  expect_refused_at_load(b, "cannot move into value 1 (Null)");
}

// ------------------------------------------------- FreeCall

TEST_F(ExecutionSafety, FreedPlannedTensorKeepsItsStorage) {
  ProgramBuilder b;
  const int x = b.tensor(f32({3}, 1, 0)), alpha = b.int_value(1);
  const int t = b.tensor(f32({3}, 1, 16));
  const int out = b.tensor(f32({3}, 1, 32));
  b.kernel(b.op("aten::add", "out"), {x, x, alpha, t, t});
  b.free_call(t);
  b.kernel(b.op("aten::add", "out"), {t, t, alpha, out, out});
  b.inputs = {x};
  b.outputs = {out};
  b.buffer_sizes = {0, 48};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  Float3Input input;
  for (int run = 0; run < 2; ++run) {
    ASSERT_EQ(input.bind(*l->method), Error::Ok);
    ASSERT_EQ(l->method->execute(), Error::Ok) << "run " << run;
    EXPECT_FLOAT_EQ(l->method->get_output(0).toTensor().const_data_ptr<float>()[2], 12.0f);
  }
}

TEST_F(ExecutionSafety, FreeCallOnAnInputIsRefusedAtLoad) {
  ProgramBuilder b;
  const int x = b.tensor(f32({3}));
  b.free_call(x);
  b.inputs = {x};
  b.outputs = {x};
  expect_refused_at_load(b, "FreeCall: value 0 (unbacked, plan input)");
}

// ------------------------------------------------- value kinds

// A prim op's result must not change the kind of its slot: here sym_size
// would turn a tensor output into an Int.
TEST_F(ExecutionSafety, PrimOpCannotChangeTheKindOfItsResultSlot) {
  ProgramBuilder b;
  const int x = b.tensor(f32({3}, 1, 0)), zero = b.int_value(0);
  const int t = b.tensor(f32({3}, 1, 16));
  b.kernel(b.op("aten::sym_size", "int"), {x, zero, t});
  b.inputs = {x};
  b.outputs = {t};
  b.buffer_sizes = {0, 32};
  auto l = test::load(b.finish());
  ASSERT_EQ(l->method_error, Error::Ok);
  Float3Input input;
  ASSERT_EQ(input.bind(*l->method), Error::Ok);
  EXPECT_EQ(l->method->execute(), Error::InvalidProgram);
  EXPECT_TRUE(l->method->get_output(0).isTensor());
}

TEST_F(ExecutionSafety, MoveBetweenKindsIsRefusedAtLoad) {
  ProgramBuilder b;
  const int n = b.int_value(3);
  const int t = b.tensor(f32({3}, 1, 0));
  b.move(n, t);
  b.outputs = {t};
  b.buffer_sizes = {0, 16};
  expect_refused_at_load(b, "value 0 (Int) cannot move into value 1 (Tensor)");
}

// ------------------------------------------------- alignment

TEST_F(ExecutionSafety, MisalignedPlannedOffsetIsRefusedAtLoad) {
  ProgramBuilder b;
  const int x = b.tensor(f32({3}, 1, 2));
  b.inputs = {x};
  b.outputs = {x};
  b.buffer_sizes = {0, 16};
  expect_refused_at_load(b, "offset 2 is not aligned to the element size 4");
}

// An external data map whose one float[3] tensor "w" starts one byte into
// its storage, as a crafted .ptd offset would place it.
class MisalignedDataMap final : public executorch::runtime::NamedDataMap {
 public:
  Result<const TensorLayout> get_tensor_layout(std::string_view) const override {
    return TensorLayout::create({sizes_, 1}, {dim_order_, 1}, ScalarType::Float);
  }
  Result<FreeableBuffer> get_data(std::string_view) const override {
    return FreeableBuffer(storage_ + 1, 3 * sizeof(float), nullptr);
  }
  Error load_data_into(std::string_view, void*, size_t) const override {
    return Error::NotSupported;
  }
  Result<uint32_t> get_num_keys() const override {
    return 1u;
  }
  Result<const char*> get_key(uint32_t) const override {
    return "w";
  }

 private:
  alignas(16) uint8_t storage_[32] = {};
  int32_t sizes_[1] = {3};
  uint8_t dim_order_[1] = {0};
};

TEST_F(ExecutionSafety, MisalignedExternalConstantIsRefusedAtLoad) {
  ProgramBuilder b;
  TensorSpec w = f32({3});
  w.external = true;
  w.fqn = "w";
  const int c = b.tensor(w);
  const int x = b.tensor(f32({3}, 1, 0)), alpha = b.int_value(1);
  const int out = b.tensor(f32({3}, 1, 16));
  b.kernel(b.op("aten::add", "out"), {x, c, alpha, out, out});
  b.inputs = {x};
  b.outputs = {out};
  b.buffer_sizes = {0, 32};
  MisalignedDataMap map;
  auto l = test::load(b.finish(), "forward", &map);
  EXPECT_EQ(l->method_error, Error::InvalidExternalData);
  EXPECT_TRUE(logged("external tensor 'w': its data is not aligned")) << test::logs();
}

}  // namespace
