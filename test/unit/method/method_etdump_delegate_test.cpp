// A backend logging its own nodes through event_tracer_hooks_delegate.h while a Method runs
// with an ETDumpGen: the per-node events land in the execute's RunData, attributed to the
// DelegateCall instruction (chain 0, instruction 1), next to the Method's own event for the
// call, and a node's intermediate output is a DebugEvent with the node's id.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/event_tracer_hooks_delegate.h>

#include "../etdump/etdump_reader.h"
#include "program_builder.h"

using executorch::etdump::ETDumpGen;
using executorch::runtime::ArrayRef;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracerDebugLogLevel;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::kUnsetDelegateDebugIntId;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

// Two "nodes": one timed with start/end and named, one reported with its own times by
// integer id; the first also logs its output.
struct NodeLoggingBackend final : public BackendInterface {
  bool is_available() const override {
    return true;
  }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*,
                               ArrayRef<CompileSpec>) const override {
    static int handle;
    return reinterpret_cast<DelegateHandle*>(&handle);
  }
  Error execute(BackendExecutionContext& ctx, DelegateHandle*, Span<EValue*> args) const override {
    auto* tracer = ctx.event_tracer();
    auto node = executorch::runtime::event_tracer_start_profiling_delegate(
        tracer, "node_conv", kUnsetDelegateDebugIntId);
    const int product = static_cast<int>(args[0]->toInt() * 10);
    executorch::runtime::event_tracer_end_profiling_delegate(tracer, node);
    executorch::runtime::event_tracer_log_output_delegate(tracer, "node_conv",
                                                          kUnsetDelegateDebugIntId, product);
    executorch::runtime::event_tracer_log_profiling_delegate(tracer, nullptr, 7, 1000, 1500);
    *args[1] = EValue(static_cast<int64_t>(product + 1));
    return Error::Ok;
  }
  void destroy(DelegateHandle*) const override {}
};
NodeLoggingBackend g_node_backend;
const Error g_node_backend_registered =
    executorch::runtime::register_backend({"EtdumpNodeLoggingBackend", &g_node_backend});

TEST(MethodEtdumpDelegateTest, BackendNodeEventsAreAttributedToTheDelegateCall) {
  ASSERT_EQ(g_node_backend_registered, Error::Ok);
  test::ProgramBuilder pb;
  const int a = pb.int_value(4);
  const int b = pb.int_value(0);
  const int c = pb.int_value(0);
  pb.move(a, b);                                                           // instruction 0
  pb.delegate_call(pb.delegate("EtdumpNodeLoggingBackend", {1}), {b, c});  // instruction 1
  pb.outputs = {c};
  const std::vector<uint8_t> bytes = pb.finish();

  std::vector<std::max_align_t> storage(bytes.size() / sizeof(std::max_align_t) + 1);
  std::memcpy(storage.data(), bytes.data(), bytes.size());
  executorch::extension::BufferDataLoader loader(storage.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  ASSERT_EQ(program.error(), Error::Ok);
  std::vector<uint8_t> pool(1 << 16);
  MemoryAllocator alloc(static_cast<uint32_t>(pool.size()), pool.data());
  HierarchicalAllocator planned{Span<Span<uint8_t>>()};
  MemoryManager mm(&alloc, &planned);
  ETDumpGen etdump;
  std::vector<uint8_t> debug(1024);
  ASSERT_TRUE(etdump.set_debug_buffer({debug.data(), debug.size()}).ok());
  etdump.set_event_tracer_debug_level(EventTracerDebugLogLevel::kIntermediateOutputs);
  Result<Method> method = program->load_method("forward", &mm, &etdump);
  ASSERT_EQ(method.error(), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(method->get_output(0).toInt(), 41);

  test::Dump dump = test::take_dump(etdump.get_etdump_data());
  const ::etdump::ETDump* root = dump.root();
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->run_data()->size(), 1u);
  const ::etdump::RunData* run = root->run_data()->Get(0);
  EXPECT_EQ(test::operator_names(run), std::vector<std::string>{"EtdumpNodeLoggingBackend"});
  std::vector<const ::etdump::ProfileEvent*> nodes;
  std::vector<const ::etdump::DebugEvent*> node_outputs;
  for (const ::etdump::Event* e : *run->events()) {
    const ::etdump::ProfileEvent* p = e->profile_event();
    if (p != nullptr && p->name() == nullptr) {
      nodes.push_back(p);
    }
    const ::etdump::DebugEvent* d = e->debug_event();
    if (d != nullptr && d->delegate_debug_id_str() != nullptr) {
      node_outputs.push_back(d);
    }
  }
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0]->delegate_debug_id_str()->str(), "node_conv");
  EXPECT_EQ(nodes[1]->delegate_debug_id_int(), 7);
  EXPECT_EQ(nodes[1]->start_time(), 1000u);
  EXPECT_EQ(nodes[1]->end_time(), 1500u);
  for (const ::etdump::ProfileEvent* p : nodes) {
    EXPECT_EQ(p->chain_index(), 0);
    EXPECT_EQ(p->instruction_id(), 1);
  }
  ASSERT_EQ(node_outputs.size(), 1u);
  EXPECT_EQ(node_outputs[0]->instruction_id(), 1);
  EXPECT_EQ(node_outputs[0]->debug_entry()->val(), ::etdump::ValueType::Int);
  EXPECT_EQ(node_outputs[0]->debug_entry()->int_value()->int_val(), 40);
}

}  // namespace
