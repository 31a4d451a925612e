// Program and MethodMeta on small programs built by the test writer.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cstring>

#include <gtest/gtest.h>

#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/program.h>

#include "test_util.h"

using namespace et_test;
using executorch::aten::ScalarType;
using executorch::runtime::MethodMeta;
using executorch::runtime::Tag;

namespace {

class ProgramLevels : public ::testing::TestWithParam<Verification> {};

TEST_P(ProgramLevels, LoadsAddProgram) {
  PteFile f = add_pte();
  ASSERT_TRUE(f.has_header);
  LoadedProgram lp(f.bytes, GetParam());
  ASSERT_EQ(lp.error, Error::Ok) << captured_log();
  const Program& p = *lp.program;
  EXPECT_EQ(p.num_methods(), 1u);
  EXPECT_STREQ(p.get_method_name(0).get(), "forward");
  EXPECT_EQ(p.get_method_name(1).error(), Error::InvalidArgument);

  auto meta = p.method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_STREQ(meta->name(), "forward");
  EXPECT_EQ(meta->num_inputs(), 2u);
  EXPECT_EQ(meta->num_outputs(), 1u);
  EXPECT_EQ(meta->input_tag(0).get(), Tag::Tensor);
  auto in0 = meta->input_tensor_meta(0);
  ASSERT_TRUE(in0.ok());
  EXPECT_EQ(in0->sizes().size(), 2u);
  EXPECT_EQ(in0->sizes()[0], 2);
  EXPECT_EQ(in0->dim_order()[1], 1);
  EXPECT_EQ(in0->scalar_type(), ScalarType::Float);
  EXPECT_TRUE(in0->is_memory_planned());
  EXPECT_EQ(in0->nbytes(), 16u);
  EXPECT_TRUE(in0->name().empty());
  EXPECT_EQ(meta->input_tag(2).error(), Error::InvalidArgument);
  EXPECT_EQ(meta->output_tensor_meta(0)->nbytes(), 16u);
  EXPECT_EQ(meta->num_memory_planned_buffers(), 1u);
  EXPECT_EQ(meta->memory_planned_buffer_size(0).get(), 48);
  EXPECT_EQ(meta->memory_planned_buffer_size(1).error(), Error::InvalidArgument);
  EXPECT_TRUE(meta->memory_planned_buffer_device(0)->is_cpu());
  EXPECT_EQ(meta->num_instructions(), 1u);
  EXPECT_EQ(meta->num_backends(), 0u);
  EXPECT_FALSE(meta->uses_backend("XnnpackBackend"));
  EXPECT_EQ(meta->num_attributes(), 0u);
  EXPECT_EQ(p.method_meta("missing").error(), Error::InvalidArgument);

  // Constant 1 lives in the constant segment: {1.0f, 2.0f}.
  auto c = p.get_constant_buffer_data(1, 8);
  ASSERT_TRUE(c.ok());
  float w[2];
  std::memcpy(w, c.get(), 8);
  EXPECT_EQ(w[0], 1.0f);
  EXPECT_EQ(w[1], 2.0f);
  EXPECT_EQ(p.get_constant_buffer_data(1, 9).error(), Error::InvalidArgument);
  EXPECT_EQ(p.get_constant_buffer_data(2, 0).error(), Error::InvalidArgument);

  auto enc = p.get_output_flattening_encoding("forward");
  ASSERT_TRUE(enc.ok());
  EXPECT_STREQ(enc.get(), "out-spec");
  EXPECT_EQ(p.get_named_data_map().error(), Error::NotFound);
}

INSTANTIATE_TEST_SUITE_P(BothLevels, ProgramLevels,
                         ::testing::Values(Verification::Minimal,
                                           Verification::InternalConsistency));

TEST(Program, LegacyConstantBufferWithoutHeader) {
  AddProgram a = make_add_program(/*legacy_constants=*/true);
  PteFile f = write_pte(std::move(a.program), a.segments);
  ASSERT_FALSE(f.has_header);  // all segments empty, like add.pte
  LoadedProgram lp(f.bytes, Verification::InternalConsistency);
  ASSERT_EQ(lp.error, Error::Ok) << captured_log();
  auto c = lp.program->get_constant_buffer_data(1, 8);
  ASSERT_TRUE(c.ok());
  float w[2];
  std::memcpy(w, c.get(), 8);
  EXPECT_EQ(w[1], 2.0f);
  EXPECT_EQ(lp.program->get_constant_buffer_data(1, 9).error(), Error::InvalidArgument);
  EXPECT_EQ(ProgramTestFriend::load_segment(*lp.program, 0).error(), Error::NotFound);
}

TEST(Program, CheckHeader) {
  PteFile f = add_pte();
  EXPECT_EQ(Program::check_header(f.bytes.data(), f.bytes.size()),
            Program::HeaderStatus::CompatibleVersion);
  EXPECT_EQ(Program::check_header(f.bytes.data(), 10), Program::HeaderStatus::ShortData);
  std::vector<uint8_t> b = f.bytes;
  std::memcpy(b.data() + 4, "ET11", 4);
  EXPECT_EQ(Program::check_header(b.data(), b.size()), Program::HeaderStatus::IncompatibleVersion);
  std::memcpy(b.data() + 4, "XXXX", 4);
  EXPECT_EQ(Program::check_header(b.data(), b.size()), Program::HeaderStatus::NotPresent);
}

TEST(Program, SegmentsDelegatesMutableAndNamedData) {
  AddProgram a = make_add_program();
  fb::ProgramT& p = a.program;
  // segment 1: mutable initial data; 2: delegate blob; 3: named blob.
  a.segments.push_back({1, 2, 3, 4, 5, 6, 7, 8});
  a.segments.push_back({9, 9, 9});
  a.segments.push_back({'n', 'd'});
  auto mds = std::make_unique<fb::SubsegmentOffsetsT>();
  mds->segment_index = 1;
  mds->offsets = {0, 4};
  p.mutable_data_segments.push_back(std::move(mds));
  auto inl = std::make_unique<fb::BackendDelegateInlineDataT>();
  inl->data = {42, 43};
  p.backend_delegate_data.push_back(std::move(inl));
  for (int loc = 0; loc < 2; ++loc) {
    auto d = std::make_unique<fb::BackendDelegateT>();
    d->id = loc == 0 ? "InlineBackend" : "SegmentBackend";
    d->processed = std::make_unique<fb::BackendDelegateDataReferenceT>();
    d->processed->location = loc == 0 ? fb::DataLocation::INLINE : fb::DataLocation::SEGMENT;
    d->processed->index = loc == 0 ? 0 : 2;
    p.execution_plan[0]->delegates.push_back(std::move(d));
  }
  auto nd = std::make_unique<fb::NamedDataT>();
  nd->key = "weights";
  nd->segment_index = 3;
  p.named_data.push_back(std::move(nd));
  // An attribute tensor (planned, with a fully qualified name).
  auto attr = tensor_value(fb::ScalarType::LONG, {1}, {0}, 1, 40, 0);
  attr->val.AsTensor()->extra_tensor_info = std::make_unique<fb::ExtraTensorInfoT>();
  attr->val.AsTensor()->extra_tensor_info->fully_qualified_name = "counter";
  p.execution_plan[0]->values.push_back(std::move(attr));

  PteFile f = write_pte(std::move(a.program), a.segments);
  LoadedProgram lp(f.bytes, Verification::InternalConsistency);
  ASSERT_EQ(lp.error, Error::Ok) << captured_log();
  const Program& prog = *lp.program;

  auto meta = prog.method_meta("forward");
  EXPECT_EQ(meta->num_backends(), 2u);
  EXPECT_STREQ(meta->get_backend_name(1).get(), "SegmentBackend");
  EXPECT_TRUE(meta->uses_backend("InlineBackend"));
  EXPECT_EQ(meta->get_backend_name(2).error(), Error::InvalidArgument);
  ASSERT_EQ(meta->num_attributes(), 1u);
  auto at = meta->attribute_tensor_meta(0);
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at->name(), "counter");
  EXPECT_EQ(at->nbytes(), 8u);
  EXPECT_EQ(meta->attribute_tensor_meta(1).error(), Error::InvalidArgument);

  const void* d = nullptr;
  size_t n = 0;
  ASSERT_EQ(ProgramTestFriend::delegate_data(prog, 0, &d, &n), Error::Ok);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(static_cast<const uint8_t*>(d)[1], 43);
  EXPECT_EQ(ProgramTestFriend::delegate_data(prog, 1, &d, &n), Error::NotFound);

  auto seg = ProgramTestFriend::load_segment(prog, 2);
  ASSERT_TRUE(seg.ok());
  EXPECT_EQ(seg->size(), 3u);
  EXPECT_EQ(static_cast<const uint8_t*>(seg->data())[0], 9);
  EXPECT_EQ(ProgramTestFriend::load_segment(prog, 4).error(), Error::NotFound);

  uint8_t buf[4] = {};
  ASSERT_EQ(ProgramTestFriend::mutable_into(prog, 0, 1, 4, buf), Error::Ok);
  EXPECT_EQ(buf[0], 5);
  EXPECT_EQ(ProgramTestFriend::mutable_into(prog, 0, 1, 5, buf), Error::InvalidArgument);
  EXPECT_EQ(ProgramTestFriend::mutable_into(prog, 0, 2, 1, buf), Error::NotFound);
  EXPECT_EQ(ProgramTestFriend::mutable_into(prog, 1, 0, 1, buf), Error::NotFound);

  auto map = prog.get_named_data_map();
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(map.get()->get_num_keys().get(), 1u);
  EXPECT_STREQ(map.get()->get_key(0).get(), "weights");
  EXPECT_EQ(map.get()->get_key(1).error(), Error::InvalidArgument);
  auto blob = map.get()->get_data("weights");
  ASSERT_TRUE(blob.ok());
  EXPECT_EQ(blob->size(), 2u);
  EXPECT_EQ(static_cast<const char*>(blob->data())[0], 'n');
  EXPECT_EQ(map.get()->get_data("weight").error(), Error::NotFound);
  EXPECT_EQ(map.get()->get_tensor_layout("weights").error(), Error::NotImplemented);
}

TEST(Program, MinimalDefersMethodChecksToLoadMethod) {
  AddProgram a = make_add_program();
  a.program.execution_plan[0]->values[0]->val.AsTensor()->sizes = {2, -1};
  PteFile f = write_pte(std::move(a.program), a.segments);
  // Minimal: Program loads; the method is refused before Method sees it.
  LoadedProgram lp(f.bytes, Verification::Minimal);
  ASSERT_EQ(lp.error, Error::Ok) << captured_log();
  clear_log();
  auto m = lp.program->load_method("forward", nullptr);
  EXPECT_EQ(m.error(), Error::InvalidProgram);
  EXPECT_NE(captured_log().find("values[0].Tensor.sizes[1] = -1"), std::string::npos)
      << captured_log();
  EXPECT_EQ(lp.program->load_method("nope", nullptr).error(), Error::InvalidArgument);
  // MethodMeta stays bounds-safe and reports the bad size.
  EXPECT_EQ(lp.program->method_meta("forward")->input_tensor_meta(0).error(),
            Error::InvalidProgram);
  // InternalConsistency refuses the file up front.
  LoadedProgram lp2(f.bytes, Verification::InternalConsistency);
  EXPECT_EQ(lp2.error, Error::InvalidProgram);
}

TEST(Program, ZeroSizeSegmentsAndOldHeaderLength) {
  AddProgram a = make_add_program();
  a.segments.insert(a.segments.begin() + 1, std::vector<uint8_t>{});
  PteFile f = write_pte(std::move(a.program), a.segments);
  LoadedProgram lp(f.bytes, Verification::InternalConsistency);
  EXPECT_EQ(lp.error, Error::Ok) << captured_log();
  // A 24-byte header (no segment_data_size) still loads.
  PteFile g = add_pte();
  g.put32(12, 24);
  LoadedProgram lp2(g.bytes, Verification::InternalConsistency);
  EXPECT_EQ(lp2.error, Error::Ok) << captured_log();
}

TEST(Program, UnalignedBufferIsRejected) {
  PteFile f = add_pte();
  std::vector<uint8_t> padded(f.bytes.size() + 1);
  AlignedBytes mem(padded);
  std::memcpy(mem.data + 1, f.bytes.data(), f.bytes.size());
  BufferDataLoader loader(mem.data + 1, f.bytes.size());
  EXPECT_EQ(Program::load(&loader).error(), Error::InvalidArgument);
}

}  // namespace
