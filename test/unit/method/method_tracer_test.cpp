// Method and the EventTracer: execute() opens an "Execute" event block, every KernelCall is
// profiled under its operator name ("name.overload" as resolved at load), every DelegateCall
// under its backend id, and the chain and debug handle (the instruction index) are set before
// each instruction. Without a tracer nothing changes.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

// step() and reset_execution() are experimental (marked deprecated); used below.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include "program_builder.h"
#include "test_support.h"

using executorch::runtime::AllocatorID;
using executorch::runtime::ArrayRef;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::ChainID;
using executorch::runtime::CompileSpec;
using executorch::runtime::DebugHandle;
using executorch::runtime::DelegateDebugIntId;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracer;
using executorch::runtime::EventTracerEntry;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::kUnsetChainId;
using executorch::runtime::kUnsetDebugHandle;
using executorch::runtime::LoggedEValueType;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;
using test::ProgramBuilder;

namespace {

// Records every call; profiling events carry the chain and debug handle current at start.
class CountingTracer final : public EventTracer {
 public:
  struct Event {
    std::string name;
    const char* name_ptr;
    ChainID chain;
    DebugHandle handle;
  };
  std::vector<std::string> blocks;
  std::vector<Event> started;
  std::vector<int64_t> ended;
  static constexpr int64_t kMethodEventBase = -1000;
  std::vector<std::string> method_events;
  // (index into method_events, how many operator events had ended by then)
  std::vector<std::pair<int64_t, size_t>> method_ended;
  int delegate_events = 0;

  void create_event_block(const char* name) override {
    blocks.emplace_back(name ? name : "(null)");
  }
  EventTracerEntry start_profiling(const char* name, ChainID chain_id,
                                   DebugHandle handle) override {
    EventTracerEntry e{};
    if (current_chain_id() == kUnsetChainId) {
      // Outside any instruction: a method-level event ("Method::execute"), kept apart.
      method_events.emplace_back(name ? name : "(null)");
      e.event_id = kMethodEventBase - static_cast<int64_t>(method_events.size() - 1);
      return e;
    }
    e.event_id = static_cast<int64_t>(started.size());
    e.chain_id = chain_id == kUnsetChainId ? current_chain_id() : chain_id;
    e.debug_handle = handle == kUnsetDebugHandle ? current_debug_handle() : handle;
    started.push_back({name ? name : "(null)", name, e.chain_id, e.debug_handle});
    return e;
  }
  void end_profiling(EventTracerEntry e) override {
    if (e.event_id <= kMethodEventBase) {
      method_ended.push_back({kMethodEventBase - e.event_id, ended.size()});
      return;
    }
    ended.push_back(e.event_id);
  }
  EventTracerEntry start_profiling_delegate(const char*, DelegateDebugIntId) override {
    ++delegate_events;
    return EventTracerEntry{};
  }
  void end_profiling_delegate(EventTracerEntry, const void*, size_t) override {}
  void log_profiling_delegate(const char*, DelegateDebugIntId, et_timestamp_t, et_timestamp_t,
                              const void*, size_t) override {
    ++delegate_events;
  }
  void track_allocation(AllocatorID, size_t) override {}
  AllocatorID track_allocator(const char*) override {
    return 0;
  }
  Result<bool> log_evalue(const EValue&, LoggedEValueType) override {
    return false;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : started) {
      out.push_back(e.name);
    }
    return out;
  }
};

// Kernels given to load_method (not registered globally). Each sees the tracer through its
// context and records the chain and debug handle it runs under.
EventTracer* g_seen_tracer = nullptr;
std::vector<std::pair<ChainID, DebugHandle>> g_seen_handles;

void record_kernel(KernelRuntimeContext& ctx, Span<EValue*> args) {
  EventTracer* t = ctx.internal_event_tracer();
  g_seen_tracer = t;
  if (t != nullptr) {
    g_seen_handles.emplace_back(t->current_chain_id(), t->current_debug_handle());
  }
  if (args.size() == 2 && args[0]->isInt()) {
    *args[1] = EValue(args[0]->toInt() + 1);
  }
}

const Kernel kKernels[] = {
    Kernel("tracer_test::inc.out", record_kernel),
    Kernel("tracer_test::inc", record_kernel),  // no overload
};
Span<const Kernel> kernels() {
  return Span<const Kernel>(kKernels, sizeof(kKernels) / sizeof(kKernels[0]));
}

struct TracerBackend final : public BackendInterface {
  mutable int executes = 0;
  bool is_available() const override {
    return true;
  }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*,
                               ArrayRef<CompileSpec>) const override {
    return reinterpret_cast<DelegateHandle*>(const_cast<int*>(&executes));
  }
  Error execute(BackendExecutionContext& ctx, DelegateHandle*, Span<EValue*> args) const override {
    ++executes;
    if (EventTracer* t = ctx.event_tracer()) {
      g_seen_handles.emplace_back(t->current_chain_id(), t->current_debug_handle());
    }
    *args[1] = EValue(args[0]->toInt() * 10);
    return Error::Ok;
  }
  void destroy(DelegateHandle*) const override {}
};
TracerBackend g_backend;
const Error g_backend_registered =
    executorch::runtime::register_backend({"MethodTracerTestBackend", &g_backend});

// Program + method over owned memory, loaded with `tracer` (may be null).
struct Loaded {
  std::vector<std::max_align_t> storage;
  std::unique_ptr<executorch::extension::BufferDataLoader> loader;
  std::unique_ptr<Program> program;
  std::vector<uint8_t> pool = std::vector<uint8_t>(1 << 16);
  std::unique_ptr<MemoryAllocator> alloc;
  std::unique_ptr<HierarchicalAllocator> planned;
  std::unique_ptr<MemoryManager> mm;
  std::unique_ptr<Method> method;
};

std::unique_ptr<Loaded> load(const std::vector<uint8_t>& bytes, EventTracer* tracer) {
  auto l = std::make_unique<Loaded>();
  l->storage.resize(bytes.size() / sizeof(std::max_align_t) + 1);
  std::memcpy(l->storage.data(), bytes.data(), bytes.size());
  l->loader =
      std::make_unique<executorch::extension::BufferDataLoader>(l->storage.data(), bytes.size());
  Result<Program> p = Program::load(l->loader.get());
  EXPECT_EQ(p.error(), Error::Ok);
  if (!p.ok()) {
    return nullptr;
  }
  l->program = std::make_unique<Program>(std::move(p.get()));
  l->alloc =
      std::make_unique<MemoryAllocator>(static_cast<uint32_t>(l->pool.size()), l->pool.data());
  l->planned = std::make_unique<HierarchicalAllocator>(Span<Span<uint8_t>>());
  l->mm = std::make_unique<MemoryManager>(l->alloc.get(), l->planned.get());
  Result<Method> m =
      l->program->load_method("forward", l->mm.get(), tracer, nullptr, nullptr, kernels());
  EXPECT_EQ(m.error(), Error::Ok);
  if (!m.ok()) {
    return nullptr;
  }
  l->method = std::make_unique<Method>(std::move(m.get()));
  return l;
}

// chain 0: inc.out(a) -> b; move b -> c; inc(c) -> d; prim add.Scalar(d, a) -> e;
//          delegate(e) -> f
// chain 1: inc.out(f) -> g
struct Prog {
  std::vector<uint8_t> bytes;
  int b, d, e, f, g;
};
Prog program() {
  ProgramBuilder pb;
  Prog p;
  const int a = pb.int_value(1);
  p.b = pb.int_value(0);
  const int c = pb.int_value(0);
  p.d = pb.int_value(0);
  p.e = pb.int_value(0);
  p.f = pb.int_value(0);
  p.g = pb.int_value(0);
  const int inc_out = pb.op("tracer_test::inc", "out");
  pb.kernel(inc_out, {a, p.b});
  pb.move(p.b, c);
  pb.kernel(pb.op("tracer_test::inc", ""), {c, p.d});
  pb.kernel(pb.op("executorch_prim::add", "Scalar"), {p.d, a, p.e});
  pb.delegate_call(pb.delegate("MethodTracerTestBackend", {1, 2, 3, 4}), {p.e, p.f});
  pb.new_chain();
  pb.kernel(inc_out, {p.f, p.g});
  pb.outputs = {p.b, p.d, p.e, p.f, p.g};
  p.bytes = pb.finish();
  return p;
}

class MethodTracerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(g_backend_registered, Error::Ok);
    test::register_test_kernels();
    g_seen_tracer = nullptr;
    g_seen_handles.clear();
  }
};

const std::vector<std::string> kExpectedNames = {
    "tracer_test::inc.out",    "tracer_test::inc",     "executorch_prim::add.Scalar",
    "MethodTracerTestBackend", "tracer_test::inc.out",
};

TEST_F(MethodTracerTest, ExecuteReportsEveryKernelAndDelegateCall) {
  Prog p = program();
  CountingTracer tracer;
  auto l = load(p.bytes, &tracer);
  ASSERT_NE(l, nullptr);
  EXPECT_TRUE(tracer.started.empty());  // nothing at load
  ASSERT_EQ(l->method->execute(), Error::Ok);
  // Results unchanged by tracing.
  EXPECT_EQ(l->method->get_output(0).toInt(), 2);
  EXPECT_EQ(l->method->get_output(1).toInt(), 3);
  EXPECT_EQ(l->method->get_output(2).toInt(), 4);
  EXPECT_EQ(l->method->get_output(3).toInt(), 40);
  EXPECT_EQ(l->method->get_output(4).toInt(), 41);

  EXPECT_EQ(tracer.blocks, std::vector<std::string>{"Execute"});
  EXPECT_EQ(tracer.names(), kExpectedNames);
  // The whole execution is one method-level event, ended after every operator event.
  EXPECT_EQ(tracer.method_events, std::vector<std::string>{"Method::execute"});
  EXPECT_EQ(tracer.method_ended,
            (std::vector<std::pair<int64_t, size_t>>{{0, kExpectedNames.size()}}));
  // Every event ended, in LIFO (here: sequential) order.
  ASSERT_EQ(tracer.ended.size(), tracer.started.size());
  for (size_t i = 0; i < tracer.ended.size(); ++i) {
    EXPECT_EQ(tracer.ended[i], static_cast<int64_t>(i));
  }
  // Chain and debug handle (instruction index) of each event; the move (chain 0,
  // instruction 1) reports nothing.
  const std::vector<std::pair<ChainID, DebugHandle>> where = {
      {0, 0}, {0, 2}, {0, 3}, {0, 4}, {1, 0}};
  ASSERT_EQ(tracer.started.size(), where.size());
  for (size_t i = 0; i < where.size(); ++i) {
    EXPECT_EQ(tracer.started[i].chain, where[i].first) << i;
    EXPECT_EQ(tracer.started[i].handle, where[i].second) << i;
  }
  // Kernels and the delegate see the same tracer and the same attribution.
  EXPECT_EQ(g_seen_tracer, &tracer);
  EXPECT_EQ(g_seen_handles,
            (std::vector<std::pair<ChainID, DebugHandle>>{{0, 0}, {0, 2}, {0, 4}, {1, 0}}));
  // After the method, no instruction is current.
  EXPECT_EQ(tracer.current_chain_id(), kUnsetChainId);
  EXPECT_EQ(tracer.current_debug_handle(), kUnsetDebugHandle);
}

TEST_F(MethodTracerTest, NamesAreMadeAtLoadNotPerExecute) {
  Prog p = program();
  CountingTracer tracer;
  auto l = load(p.bytes, &tracer);
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  const size_t used_after_first = l->alloc->used_size();
  ASSERT_EQ(l->method->execute(), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_EQ(l->alloc->used_size(), used_after_first);
  EXPECT_EQ(tracer.blocks.size(), 3u);
  ASSERT_EQ(tracer.started.size(), 3 * kExpectedNames.size());
  const size_t n = kExpectedNames.size();
  for (size_t i = 0; i < n; ++i) {
    // The same pointers every time.
    EXPECT_EQ(tracer.started[i].name_ptr, tracer.started[n + i].name_ptr) << i;
    EXPECT_EQ(tracer.started[i].name_ptr, tracer.started[2 * n + i].name_ptr) << i;
  }
  // One copy per operator: both calls of inc.out share it.
  EXPECT_EQ(tracer.started[0].name_ptr, tracer.started[4].name_ptr);
  // An operator without overload is named by the program's own string, no copy.
  const uint8_t* prog = reinterpret_cast<const uint8_t*>(l->storage.data());
  const uint8_t* name1 = reinterpret_cast<const uint8_t*>(tracer.started[1].name_ptr);
  EXPECT_TRUE(name1 >= prog && name1 < prog + p.bytes.size());
}

TEST_F(MethodTracerTest, StepReportsEachInstruction) {
  Prog p = program();
  CountingTracer tracer;
  auto l = load(p.bytes, &tracer);
  ASSERT_NE(l, nullptr);
  Error err = Error::Ok;
  int steps = 0;
  while ((err = l->method->step()) == Error::Ok) {
    ++steps;
  }
  EXPECT_EQ(err, Error::EndOfMethod);
  EXPECT_EQ(steps, 6);
  EXPECT_EQ(tracer.names(), kExpectedNames);
  EXPECT_EQ(tracer.ended.size(), kExpectedNames.size());
  EXPECT_EQ(l->method->reset_execution(), Error::Ok);
}

TEST_F(MethodTracerTest, WithoutTracerNothingIsReportedAndNoNamesAreMade) {
  Prog p = program();
  CountingTracer tracer;
  auto traced = load(p.bytes, &tracer);
  auto plain = load(p.bytes, nullptr);
  ASSERT_NE(traced, nullptr);
  ASSERT_NE(plain, nullptr);
  ASSERT_EQ(plain->method->execute(), Error::Ok);
  EXPECT_EQ(plain->method->get_output(4).toInt(), 41);
  EXPECT_EQ(g_seen_tracer, nullptr);
  EXPECT_TRUE(g_seen_handles.empty());
  EXPECT_TRUE(tracer.started.empty());
  // The names (the two with an overload that need a copy) cost method memory only with a
  // tracer.
  EXPECT_GT(traced->alloc->used_size(), plain->alloc->used_size());
}

TEST_F(MethodTracerTest, FailingKernelStillEndsItsEvent) {
  // executorch_prim::add.Scalar with a missing result slot fails in the kernel.
  ProgramBuilder pb;
  const int a = pb.int_value(1);
  pb.kernel(pb.op("executorch_prim::add", "Scalar"), {a, a});
  pb.outputs = {a};
  CountingTracer tracer;
  auto l = load(pb.finish(), &tracer);
  ASSERT_NE(l, nullptr);
  EXPECT_NE(l->method->execute(), Error::Ok);
  ASSERT_EQ(tracer.started.size(), 1u);
  EXPECT_EQ(tracer.started[0].name, "executorch_prim::add.Scalar");
  EXPECT_EQ(tracer.ended.size(), 1u);
}

}  // namespace
