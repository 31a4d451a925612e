// ETDumpGen on real programs: a zoo model run through Module (which owns the tracer, as
// upstream's Module does) and through Program::load_method. The ETDump must verify against
// the schema and hold one RunData per execute, whose operator events are exactly the
// method's KernelCalls, and (with a debug buffer) the operator and program outputs.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/module/module.h>

#include <xnnpack_schema/schema_generated.h>

#include "../common/zoo_fixture.h"
#include "etdump_reader.h"

using executorch::etdump::ETDumpGen;
using executorch::extension::Module;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracerDebugLogLevel;
using executorch::runtime::EventTracerProfilingLevel;

namespace {

// The first call's inputs of a zoo program's forward, kept alive for the executions.
struct ZooInputs {
  std::vector<std::unique_ptr<test::ZooValue>> owned;
  std::vector<EValue> values;
};

ZooInputs zoo_inputs(const std::string& program) {
  ZooInputs in;
  for (const test::Json& p : test::zoo_manifest()["programs"].arr) {
    if (p["name"].str != program) {
      continue;
    }
    for (const test::Json& m : p["methods"].arr) {
      if (m["name"].str != "forward") {
        continue;
      }
      for (const test::Json& d : m["calls"].arr[0]["inputs"].arr) {
        auto v = std::make_unique<test::ZooValue>();
        std::string err;
        EXPECT_TRUE(test::make_zoo_value(d, v.get(), &err)) << err;
        in.values.push_back(v->value);
        in.owned.push_back(std::move(v));
      }
    }
  }
  return in;
}

std::string zoo_file(const std::string& program) {
  return test::zoo_dir() + "/" + program + ".pte";
}

class EtdumpZooTest : public ::testing::TestWithParam<const char*> {};

TEST_P(EtdumpZooTest, OneRunPerExecuteWithEveryKernelCall) {
  const std::string name = GetParam();
  const std::vector<std::string> expected =
      test::kernel_calls_of(test::read_file(zoo_file(name)), "forward");
  ASSERT_FALSE(expected.empty());

  Module module(zoo_file(name), Module::LoadMode::File, std::make_unique<ETDumpGen>());
  // Every KernelCall of the file runs only without the load-time preparation (which
  // folds constant-only instructions and fuses activations into convolutions);
  // PreparedRunLogsOnlyWhatRuns covers the prepared run.
  module.set_prepare_constants(false);
  ZooInputs in = zoo_inputs(name);
  ASSERT_FALSE(in.values.empty());
  constexpr int kRuns = 3;
  for (int i = 0; i < kRuns; ++i) {
    ASSERT_TRUE(module.forward(in.values).ok()) << i;
  }
  auto* etdump = static_cast<ETDumpGen*>(module.event_tracer());
  EXPECT_EQ(etdump->get_num_blocks(), static_cast<size_t>(kRuns));
  test::Dump dump = test::take_dump(etdump->get_etdump_data());
  ASSERT_FALSE(dump.bytes.empty());
  EXPECT_EQ(std::memcmp(dump.bytes.data() + 8, "ED00", 4), 0);  // after size and root offset
  const ::etdump::ETDump* root = dump.root();
  ASSERT_NE(root, nullptr) << "the ETDump does not verify against the schema";
  EXPECT_EQ(root->version(), 0u);
  ASSERT_NE(root->run_data(), nullptr);
  ASSERT_EQ(root->run_data()->size(), static_cast<flatbuffers::uoffset_t>(kRuns));
  for (const ::etdump::RunData* run : *root->run_data()) {
    ASSERT_NE(run->name(), nullptr);
    EXPECT_EQ(run->name()->str(), "Execute");
    EXPECT_EQ(test::operator_names(run), expected);
    EXPECT_EQ(test::method_event_names(run), std::vector<std::string>{"Method::execute"});
    // Instruction ids count up within the chain; each span has a non-negative length.
    int32_t next_instruction = 0;
    for (const ::etdump::Event* e : *run->events()) {
      const ::etdump::ProfileEvent* p = e->profile_event();
      ASSERT_NE(p, nullptr);  // no debug level: profile events only
      EXPECT_LE(p->start_time(), p->end_time());
      if (p->chain_index() >= 0) {
        EXPECT_EQ(p->instruction_id(), next_instruction++);
      }
    }
    EXPECT_TRUE(test::debug_events(run).empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, EtdumpZooTest, ::testing::Values("mlp", "cnn"));

// With the load-time preparation on (the default), instructions folded at load never run and an
// activation fused into its convolution runs inside it: the dump holds exactly the operators
// that ran, in program order, a strict subset of the file's KernelCalls for cnn (a constant
// permute folded, a relu fused).
TEST(EtdumpTest, PreparedRunLogsOnlyWhatRuns) {
  const std::vector<std::string> calls =
      test::kernel_calls_of(test::read_file(zoo_file("cnn")), "forward");
  Module module(zoo_file("cnn"), Module::LoadMode::File, std::make_unique<ETDumpGen>());
  ZooInputs in = zoo_inputs("cnn");
  ASSERT_TRUE(module.forward(in.values).ok());
  auto* etdump = static_cast<ETDumpGen*>(module.event_tracer());
  test::Dump dump = test::take_dump(etdump->get_etdump_data());
  const ::etdump::ETDump* root = dump.root();
  ASSERT_NE(root, nullptr) << "the ETDump does not verify against the schema";
  ASSERT_EQ(root->run_data()->size(), 1u);
  const std::vector<std::string> ran = test::operator_names(root->run_data()->Get(0));
  EXPECT_LT(ran.size(), calls.size()) << "nothing was folded or fused";
  size_t next = 0;  // ran must be a subsequence of calls
  for (const std::string& name : ran) {
    while (next < calls.size() && calls[next] != name) {
      ++next;
    }
    ASSERT_LT(next, calls.size()) << name << " is not a KernelCall in program order";
    ++next;
  }
  int32_t last_instruction = -1;
  for (const ::etdump::Event* e : *root->run_data()->Get(0)->events()) {
    const ::etdump::ProfileEvent* p = e->profile_event();
    if (p != nullptr && p->chain_index() >= 0) {
      EXPECT_GT(p->instruction_id(), last_instruction);
      last_instruction = p->instruction_id();
    }
  }
}

TEST(EtdumpTest, ProfileMethodOnlyRecordsTheExecutionAlone) {
  auto gen = std::make_unique<ETDumpGen>();
  gen->set_event_tracer_profiling_level(EventTracerProfilingLevel::kProfileMethodOnly);
  Module module(zoo_file("mlp"), Module::LoadMode::File, std::move(gen));
  ZooInputs in = zoo_inputs("mlp");
  ASSERT_TRUE(module.forward(in.values).ok());
  test::Dump dump =
      test::take_dump(static_cast<ETDumpGen*>(module.event_tracer())->get_etdump_data());
  const ::etdump::ETDump* root = dump.root();
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->run_data()->size(), 1u);
  EXPECT_TRUE(test::operator_names(root->run_data()->Get(0)).empty());
  EXPECT_EQ(test::method_event_names(root->run_data()->Get(0)),
            std::vector<std::string>{"Method::execute"});
}

TEST(EtdumpTest, DebugBufferHoldsEveryKernelOutputAndTheProgramOutput) {
  const std::vector<std::string> kernels =
      test::kernel_calls_of(test::read_file(zoo_file("mlp")), "forward");
  std::vector<uint8_t> debug(1 << 20);
  auto gen = std::make_unique<ETDumpGen>();
  ASSERT_TRUE(gen->set_debug_buffer({debug.data(), debug.size()}).ok());
  gen->set_event_tracer_debug_level(EventTracerDebugLogLevel::kIntermediateOutputs);
  Module module(zoo_file("mlp"), Module::LoadMode::File, std::move(gen));
  // Every KernelCall of the file runs only without the load-time preparation (which
  // folds constant-only instructions and fuses activations into convolutions);
  // PreparedRunLogsOnlyWhatRuns covers the prepared run.
  module.set_prepare_constants(false);
  ZooInputs in = zoo_inputs("mlp");
  auto out = module.forward(in.values);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->size(), 1u);
  const auto& y = (*out)[0].toTensor();

  auto* etdump = static_cast<ETDumpGen*>(module.event_tracer());
  const size_t used = etdump->get_debug_buffer_used_bytes();
  test::Dump dump = test::take_dump(etdump->get_etdump_data());
  const ::etdump::ETDump* root = dump.root();
  ASSERT_NE(root, nullptr);
  const auto events = test::debug_events(root->run_data()->Get(0));
  // One per KernelCall, then the program output.
  ASSERT_EQ(events.size(), kernels.size() + 1);
  for (size_t i = 0; i < events.size(); ++i) {
    const ::etdump::Value* v = events[i]->debug_entry();
    ASSERT_NE(v, nullptr);
    ASSERT_EQ(v->val(), ::etdump::ValueType::Tensor);
    const int64_t offset = v->tensor()->offset();
    EXPECT_EQ(offset % 64, 0) << i;
    const bool is_output = v->output() != nullptr && v->output()->bool_val();
    EXPECT_EQ(is_output, i + 1 == events.size()) << i;
    if (i + 1 < events.size()) {
      EXPECT_EQ(events[i]->instruction_id(), static_cast<int32_t>(i));
    }
  }
  // The program output's data in the debug buffer is the returned tensor, and so is the last
  // kernel's output (the method ends with it).
  for (size_t i : {events.size() - 2, events.size() - 1}) {
    const ::etdump::Tensor* t = events[i]->debug_entry()->tensor();
    ASSERT_LE(static_cast<size_t>(t->offset()) + y.nbytes(), used);
    EXPECT_EQ(std::memcmp(debug.data() + t->offset(), y.const_data_ptr(), y.nbytes()), 0) << i;
    ASSERT_EQ(t->sizes()->size(), static_cast<flatbuffers::uoffset_t>(y.dim()));
    for (int d = 0; d < y.dim(); ++d) {
      EXPECT_EQ(t->sizes()->Get(static_cast<flatbuffers::uoffset_t>(d)), y.size(d));
    }
    EXPECT_EQ(t->scalar_type(), executorch_flatbuffer::ScalarType::FLOAT);
  }
}

TEST(EtdumpTest, FullDebugBufferDropsValuesButNotTheRun) {
  // 300 bytes: the first kernel output of mlp ([16, 32] floats, 2 KiB) never fits.
  std::vector<uint8_t> debug(300 + 64, 0xAB);
  auto gen = std::make_unique<ETDumpGen>();
  ASSERT_TRUE(gen->set_debug_buffer({debug.data(), 300}).ok());
  gen->set_event_tracer_debug_level(EventTracerDebugLogLevel::kIntermediateOutputs);
  Module module(zoo_file("mlp"), Module::LoadMode::File, std::move(gen));
  // Every KernelCall of the file runs only without the load-time preparation (which
  // folds constant-only instructions and fuses activations into convolutions);
  // PreparedRunLogsOnlyWhatRuns covers the prepared run.
  module.set_prepare_constants(false);
  ZooInputs in = zoo_inputs("mlp");
  auto out = module.forward(in.values);
  ASSERT_TRUE(out.ok());  // the results do not depend on the tracer
  auto* etdump = static_cast<ETDumpGen*>(module.event_tracer());
  EXPECT_LE(etdump->get_debug_buffer_used_bytes(), 300u);
  for (size_t i = 300; i < debug.size(); ++i) {
    ASSERT_EQ(debug[i], 0xAB) << "written past the debug buffer at " << i;
  }
  test::Dump dump = test::take_dump(etdump->get_etdump_data());
  const ::etdump::ETDump* root = dump.root();
  ASSERT_NE(root, nullptr);
  const ::etdump::RunData* run = root->run_data()->Get(0);
  EXPECT_EQ(test::operator_names(run).size(),
            test::kernel_calls_of(test::read_file(zoo_file("mlp")), "forward").size());
  // Only the values that fitted were recorded, each inside the buffer.
  for (const ::etdump::DebugEvent* e : test::debug_events(run)) {
    const ::etdump::Tensor* t = e->debug_entry()->tensor();
    ASSERT_NE(t, nullptr);
    EXPECT_LT(t->offset(), 300);
  }
}

// The XNNPACK node types of a delegate payload (the "XH00" layout the upstream exporter writes:
// the flatbuffer's offset is the 4 bytes at 10), in node order.
std::vector<std::string> xnnpack_node_types(const std::vector<uint8_t>& payload) {
  std::vector<std::string> out;
  if (payload.size() < 30 || std::memcmp(payload.data() + 4, "XH00", 4) != 0) {
    ADD_FAILURE() << "not an XNNPACK payload";
    return out;
  }
  uint32_t fb_offset = 0;
  for (int i = 3; i >= 0; --i) {
    fb_offset = (fb_offset << 8) | payload[10 + i];
  }
  const auto* graph = ::xnnpack_schema::GetXNNGraph(payload.data() + fb_offset);
  for (const auto* node : *graph->xnodes()) {
    out.push_back(::xnnpack_schema::EnumNameXNodeUnion(node->xnode_union_type()));
  }
  return out;
}

// XnnpackBackend reports one delegate event per payload node, named by its XNode type, with the
// node index as metadata, inside the DelegateCall's instruction and the run's Method::execute.
TEST(EtdumpTest, XnnpackDelegateLogsOneEventPerNode) {
  // The payload of cnn_xnnpack's only delegate, as the fuzz seeds keep it.
  const std::vector<std::string> expected =
      xnnpack_node_types(test::read_file("test/fuzz/seeds/xnnpack/cnn_xnnpack.delegate0.bin"));
  ASSERT_GT(expected.size(), 1u);

  Module module(zoo_file("cnn_xnnpack"), Module::LoadMode::File, std::make_unique<ETDumpGen>());
  ZooInputs in = zoo_inputs("cnn_xnnpack");
  ASSERT_FALSE(in.values.empty());
  ASSERT_TRUE(module.forward(in.values).ok());
  auto* etdump = static_cast<ETDumpGen*>(module.event_tracer());
  test::Dump dump = test::take_dump(etdump->get_etdump_data());
  const ::etdump::ETDump* root = dump.root();
  ASSERT_NE(root, nullptr) << "the ETDump does not verify against the schema";
  ASSERT_EQ(root->run_data()->size(), 1u);
  const ::etdump::RunData* run = root->run_data()->Get(0);

  const ::etdump::ProfileEvent* method = nullptr;
  std::vector<const ::etdump::ProfileEvent*> delegate_events;
  for (const auto* e : *run->events()) {
    const ::etdump::ProfileEvent* p = e->profile_event();
    if (p == nullptr) {
      continue;
    }
    if (p->delegate_debug_id_str() != nullptr) {
      delegate_events.push_back(p);
    } else if (p->name() != nullptr && p->name()->str() == "Method::execute") {
      method = p;
    }
  }
  ASSERT_NE(method, nullptr);
  ASSERT_EQ(delegate_events.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const ::etdump::ProfileEvent* p = delegate_events[i];
    EXPECT_EQ(p->delegate_debug_id_str()->str(), expected[i]) << i;
    EXPECT_EQ(p->delegate_debug_id_int(), -1) << i;
    EXPECT_EQ(p->name(), nullptr) << i;
    EXPECT_GE(p->chain_index(), 0) << i;
    EXPECT_GE(p->instruction_id(), 0) << i;
    ASSERT_NE(p->delegate_debug_metadata(), nullptr) << i;
    ASSERT_EQ(p->delegate_debug_metadata()->size(), sizeof(uint32_t)) << i;
    uint32_t node_index = 0;
    std::memcpy(&node_index, p->delegate_debug_metadata()->data(), sizeof(node_index));
    EXPECT_EQ(node_index, i);
    EXPECT_LE(p->start_time(), p->end_time()) << i;
    EXPECT_GE(p->start_time(), method->start_time()) << i;
    EXPECT_LE(p->end_time(), method->end_time()) << i;
    if (i > 0) {
      EXPECT_GE(p->start_time(), delegate_events[i - 1]->end_time()) << i;
    }
  }
}

}  // namespace
