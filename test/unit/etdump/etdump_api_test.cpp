// ETDumpGen through the EventTracer API directly, as a backend or a runner calls it:
// delegate events (by name and by id, with metadata), allocators, logged values and their
// errors, the caller's output buffer, and finishing a dump.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/runtime/core/event_tracer_hooks_delegate.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include "etdump_reader.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracerEntry;
using executorch::runtime::kUnsetDelegateDebugIntId;
using executorch::runtime::LoggedEValueType;

namespace {

// A float tensor over caller-owned data.
struct FloatTensor {
  explicit FloatTensor(std::vector<float> v) : data(std::move(v)) {
    sizes[0] = static_cast<TensorImpl::SizesType>(data.size());
    impl = std::make_unique<TensorImpl>(ScalarType::Float, 1, sizes, data.data());
  }
  Tensor tensor() {
    return Tensor(impl.get());
  }
  std::vector<float> data;
  TensorImpl::SizesType sizes[1];
  std::unique_ptr<TensorImpl> impl;
};

TEST(EtdumpApiTest, DelegateEventsByNameAndByIdCarryTheirInstruction) {
  ETDumpGen gen;
  gen.create_event_block("Execute");
  gen.set_chain_debug_handle(0, 7);  // as the Method does around a DelegateCall
  const uint8_t meta[3] = {1, 2, 3};
  EventTracerEntry by_name = executorch::runtime::event_tracer_start_profiling_delegate(
      &gen, "conv_1", kUnsetDelegateDebugIntId);
  executorch::runtime::event_tracer_end_profiling_delegate(&gen, by_name, meta, sizeof(meta));
  EventTracerEntry by_id =
      executorch::runtime::event_tracer_start_profiling_delegate(&gen, nullptr, 42);
  executorch::runtime::event_tracer_end_profiling_delegate(&gen, by_id);
  executorch::runtime::event_tracer_log_profiling_delegate(&gen, "timed_by_backend",
                                                           kUnsetDelegateDebugIntId, 100, 250);
  // Neither or both identifiers: dropped, not recorded half-named.
  executorch::runtime::event_tracer_end_profiling_delegate(
      &gen, executorch::runtime::event_tracer_start_profiling_delegate(&gen, "x", 3));
  executorch::runtime::event_tracer_log_profiling_delegate(&gen, nullptr, kUnsetDelegateDebugIntId,
                                                           1, 2);
  // Without a tracer the helpers do nothing.
  executorch::runtime::event_tracer_end_profiling_delegate(
      nullptr, executorch::runtime::event_tracer_start_profiling_delegate(nullptr, "y", -1));

  test::Dump dump = test::take_dump(gen.get_etdump_data());
  const ::etdump::ETDump* root = dump.root();
  ASSERT_NE(root, nullptr);
  const ::etdump::RunData* run = root->run_data()->Get(0);
  ASSERT_EQ(run->events()->size(), 3u);
  const ::etdump::ProfileEvent* a = run->events()->Get(0)->profile_event();
  const ::etdump::ProfileEvent* b = run->events()->Get(1)->profile_event();
  const ::etdump::ProfileEvent* c = run->events()->Get(2)->profile_event();
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->delegate_debug_id_str()->str(), "conv_1");
  EXPECT_EQ(a->delegate_debug_id_int(), -1);
  ASSERT_EQ(a->delegate_debug_metadata()->size(), 3u);
  EXPECT_EQ(a->delegate_debug_metadata()->Get(2), 3);
  EXPECT_EQ(b->delegate_debug_id_str(), nullptr);
  EXPECT_EQ(b->delegate_debug_id_int(), 42);
  EXPECT_EQ(c->delegate_debug_id_str()->str(), "timed_by_backend");
  EXPECT_EQ(c->start_time(), 100u);
  EXPECT_EQ(c->end_time(), 250u);
  for (const ::etdump::ProfileEvent* p : {a, b, c}) {
    EXPECT_EQ(p->instruction_id(), 7);
    EXPECT_EQ(p->chain_index(), 0);
    EXPECT_EQ(p->name(), nullptr);  // delegate events are named by their debug id
  }
}

TEST(EtdumpApiTest, AllocatorsAndAllocations) {
  ETDumpGen gen;
  gen.create_event_block("Execute");
  const auto planned = gen.track_allocator("planned");
  const auto temp = gen.track_allocator("temp");
  gen.track_allocation(temp, 64);
  gen.track_allocation(planned, 4096);
  test::Dump dump = test::take_dump(gen.get_etdump_data());
  const ::etdump::ETDump* root = dump.root();
  ASSERT_NE(root, nullptr);
  const ::etdump::RunData* run = root->run_data()->Get(0);
  ASSERT_EQ(run->allocators()->size(), 2u);
  EXPECT_EQ(run->allocators()->Get(planned)->name()->str(), "planned");
  EXPECT_EQ(run->allocators()->Get(temp)->name()->str(), "temp");
  ASSERT_EQ(run->events()->size(), 2u);
  EXPECT_EQ(run->events()->Get(0)->allocation_event()->allocator_id(), static_cast<int32_t>(temp));
  EXPECT_EQ(run->events()->Get(0)->allocation_event()->allocation_size(), 64u);
  EXPECT_EQ(run->events()->Get(1)->allocation_event()->allocation_size(), 4096u);
}

TEST(EtdumpApiTest, FullDebugBufferIsOutOfResourcesAndNothingIsWrittenPastIt) {
  std::vector<uint8_t> backing(256, 0xCD);
  ETDumpGen gen;
  ASSERT_TRUE(gen.set_debug_buffer({backing.data(), 128}).ok());
  gen.create_event_block("Execute");
  FloatTensor fits(std::vector<float>(16, 1.5f));  // 64 bytes at offset 0
  FloatTensor big(std::vector<float>(32, 2.5f));   // 128 bytes: would start at 64
  auto ok = gen.log_evalue(EValue(fits.tensor()), LoggedEValueType::kIntermediateOutput);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok.get());
  auto full = gen.log_evalue(EValue(big.tensor()), LoggedEValueType::kIntermediateOutput);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error(), Error::OutOfResources);
  EXPECT_EQ(gen.get_debug_buffer_used_bytes(), 64u);
  for (size_t i = 64; i < backing.size(); ++i) {
    ASSERT_EQ(backing[i], 0xCD) << i;
  }
  // A tensor list that does not fit as a whole leaves nothing behind either.
  FloatTensor small(std::vector<float>(8, 1.0f));
  Tensor list[2] = {small.tensor(), big.tensor()};
  auto list_result = gen.log_intermediate_output_delegate(
      "list", kUnsetDelegateDebugIntId, executorch::runtime::ArrayRef<Tensor>(list, 2));
  ASSERT_FALSE(list_result.ok());
  EXPECT_EQ(list_result.error(), Error::OutOfResources);
  EXPECT_EQ(gen.get_debug_buffer_used_bytes(), 64u);

  test::Dump dump = test::take_dump(gen.get_etdump_data());
  const ::etdump::ETDump* root = dump.root();
  ASSERT_NE(root, nullptr);
  const auto events = test::debug_events(root->run_data()->Get(0));
  ASSERT_EQ(events.size(), 1u);  // only the value that fitted
  EXPECT_EQ(events[0]->debug_entry()->tensor()->offset(), 0);
  float first = 0;
  std::memcpy(&first, backing.data(), sizeof(first));
  EXPECT_EQ(first, 1.5f);
}

TEST(EtdumpApiTest, TensorDataWithoutDebugBufferIsInvalidArgument) {
  ETDumpGen gen;
  gen.create_event_block("Execute");
  FloatTensor t(std::vector<float>(4, 1.0f));
  auto r = gen.log_evalue(EValue(t.tensor()), LoggedEValueType::kIntermediateOutput);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::InvalidArgument);
  // Scalars need no buffer; kinds ETDump has no encoding for are skipped, not errors.
  auto i = gen.log_evalue(EValue(static_cast<int64_t>(5)), LoggedEValueType::kProgramOutput);
  ASSERT_TRUE(i.ok());
  EXPECT_TRUE(i.get());
  auto none = gen.log_evalue(EValue(), LoggedEValueType::kIntermediateOutput);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.get());
  test::Dump dump = test::take_dump(gen.get_etdump_data());
  ASSERT_NE(dump.root(), nullptr);
  const auto events = test::debug_events(dump.root()->run_data()->Get(0));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]->debug_entry()->val(), ::etdump::ValueType::Int);
  EXPECT_EQ(events[0]->debug_entry()->int_value()->int_val(), 5);
  EXPECT_TRUE(events[0]->debug_entry()->output()->bool_val());
}

TEST(EtdumpApiTest, CallerBufferReceivesTheDumpOrNothingWhenTooSmall) {
  std::vector<uint8_t> out(4096);
  ETDumpGen gen({out.data(), out.size()});
  EXPECT_TRUE(gen.is_static_etdump());
  gen.create_event_block("Execute");
  gen.end_profiling(gen.start_profiling("op"));
  ETDumpResult r = gen.get_etdump_data();
  ASSERT_EQ(r.buf, out.data());
  test::Dump d;
  d.bytes.assign(out.data(), out.data() + r.size);
  ASSERT_NE(d.root(), nullptr);

  std::vector<uint8_t> tiny(16);
  ETDumpGen small({tiny.data(), tiny.size()});
  small.create_event_block("Execute");
  small.end_profiling(small.start_profiling("op"));
  ETDumpResult none = small.get_etdump_data();
  EXPECT_EQ(none.buf, nullptr);
  EXPECT_EQ(none.size, 0u);
}

TEST(EtdumpApiTest, FinishingTwiceGivesTheSameDumpAndANewBlockStartsANewOne) {
  ETDumpGen gen;
  EXPECT_EQ(gen.get_etdump_data().buf, nullptr);  // nothing recorded yet
  gen.create_event_block("Execute");
  gen.end_profiling(gen.start_profiling("first"));
  test::Dump one = test::take_dump(gen.get_etdump_data());
  test::Dump again = test::take_dump(gen.get_etdump_data());
  EXPECT_EQ(one.bytes, again.bytes);
  gen.create_event_block("Execute");
  gen.end_profiling(gen.start_profiling("second"));
  test::Dump two = test::take_dump(gen.get_etdump_data());
  ASSERT_NE(two.root(), nullptr);
  ASSERT_EQ(two.root()->run_data()->size(), 1u);
  EXPECT_EQ(test::operator_names(two.root()->run_data()->Get(0)), std::vector<std::string>{});
  EXPECT_EQ(two.root()->run_data()->Get(0)->events()->Get(0)->profile_event()->name()->str(),
            "second");
}

TEST(EtdumpApiTest, AnEventOpenWhileTheDumpIsTakenIsDroppedNotCorrupted) {
  ETDumpGen gen;
  gen.create_event_block("Execute");
  EventTracerEntry open = gen.start_profiling("spans_the_finish");
  EventTracerEntry open_delegate = gen.start_profiling_delegate("node", kUnsetDelegateDebugIntId);
  test::Dump first = test::take_dump(gen.get_etdump_data());
  ASSERT_NE(first.root(), nullptr);
  gen.create_event_block("Execute");
  gen.end_profiling(open);  // its name lives in the previous ETDump's strings
  gen.end_profiling_delegate(open_delegate);
  gen.end_profiling(gen.start_profiling("fresh"));
  test::Dump second = test::take_dump(gen.get_etdump_data());
  ASSERT_NE(second.root(), nullptr);
  const ::etdump::RunData* run = second.root()->run_data()->Get(0);
  ASSERT_EQ(run->events()->size(), 1u);
  EXPECT_EQ(run->events()->Get(0)->profile_event()->name()->str(), "fresh");
}

}  // namespace
