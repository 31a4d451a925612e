#include "pte_writer.h"

#include <mutex>

#include <executorch/runtime/platform/platform.h>

namespace et_test {

namespace {

size_t align_up(size_t v, size_t a) {
  return (v + a - 1) / a * a;
}

std::mutex g_log_mu;
std::string g_log;

void capture(et_timestamp_t, et_pal_log_level_t, const char*, const char*, size_t,
             const char* message, size_t length) {
  std::lock_guard<std::mutex> lock(g_log_mu);
  g_log.append(message, length);
  g_log.push_back('\n');
}

// The Verifier checks a vector's length word for 4-byte alignment only; UnPack() reads the
// elements of [long]/[double]/[uint64] vectors as 8-byte loads. A file with such a vector at
// a 4-mod-8 address is refused instead of read misaligned.
template <typename V>
bool wide_aligned(const V* v) {
  return v == nullptr || reinterpret_cast<uintptr_t>(v->data()) % 8 == 0;
}

bool wide_vectors_aligned(const fb::Program* p) {
  if (p->constant_segment() != nullptr && !wide_aligned(p->constant_segment()->offsets())) {
    return false;
  }
  if (p->mutable_data_segments() != nullptr) {
    for (const auto* m : *p->mutable_data_segments()) {
      if (!wide_aligned(m->offsets()))
        return false;
    }
  }
  if (p->execution_plan() == nullptr)
    return true;
  for (const auto* plan : *p->execution_plan()) {
    if (!wide_aligned(plan->non_const_buffer_sizes()))
      return false;
    if (plan->values() == nullptr)
      continue;
    for (const auto* v : *plan->values()) {
      if (!wide_aligned(v->val_as_IntList() ? v->val_as_IntList()->items() : nullptr) ||
          !wide_aligned(v->val_as_DoubleList() ? v->val_as_DoubleList()->items() : nullptr)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

void clear_log() {
  static bool installed = [] {
    return executorch::runtime::register_pal(
        executorch::runtime::PalImpl::create(capture, __FILE__));
  }();
  (void)installed;
  std::lock_guard<std::mutex> lock(g_log_mu);
  g_log.clear();
}

std::string captured_log() {
  std::lock_guard<std::mutex> lock(g_log_mu);
  return g_log;
}

PteFile write_pte(fb::ProgramT program, const std::vector<std::vector<uint8_t>>& segments,
                  const WriteOptions& opts) {
  // Segment table: offsets relative to the segment base, each aligned.
  program.segments.clear();
  std::vector<size_t> placed;  // where the bytes go (after_layout may lie)
  size_t off = 0;
  size_t total = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    off = align_up(off, opts.segment_alignment);
    auto s = std::make_unique<fb::DataSegmentT>();
    s->offset = off;
    s->size = segments[i].size();
    placed.push_back(off);
    program.segments.push_back(std::move(s));
    off += segments[i].size();
    total = off;
  }
  if (opts.after_layout) {
    opts.after_layout(program);
  }
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fb::Program::Pack(fbb, &program), fb::ProgramIdentifier());
  std::vector<uint8_t> flat(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());

  PteFile out;
  bool any_bytes = false;
  for (const auto& s : segments)
    any_bytes |= !s.empty();
  out.has_header = !opts.no_header && (any_bytes || opts.force_header);
  if (!out.has_header) {
    out.bytes = flat;
    out.program_size = flat.size();
    return out;
  }
  constexpr size_t kHeader = 32;  // 32 rounded up to 16
  out.program_size = flat.size() + kHeader;
  out.segment_base = align_up(out.program_size, opts.segment_alignment);
  out.bytes.assign(out.segment_base + total, 0);
  std::memcpy(out.bytes.data(), flat.data(), 8);
  std::memcpy(out.bytes.data() + 8 + kHeader, flat.data() + 8, flat.size() - 8);
  out.put32(0, out.get32(0) + kHeader);
  std::memcpy(out.bytes.data() + 8, "eh00", 4);
  out.put32(12, 32);
  out.put64(16, out.program_size);
  out.put64(24, out.segment_base);
  out.put64(32, total);
  for (size_t i = 0; i < segments.size(); ++i) {
    if (!segments[i].empty()) {
      std::memcpy(out.bytes.data() + out.segment_base + placed[i], segments[i].data(),
                  segments[i].size());
    }
  }
  return out;
}

bool read_pte(const std::vector<uint8_t>& file, fb::ProgramT* program,
              std::vector<std::vector<uint8_t>>* segments) {
  if (file.size() < 16)
    return false;
  size_t program_size = file.size();
  size_t base = 0;
  if (std::memcmp(file.data() + 8, "eh00", 4) == 0) {
    if (file.size() < 40)
      return false;
    auto rd64 = [&](size_t o) {
      uint64_t v = 0;
      for (int i = 0; i < 8; ++i)
        v |= uint64_t(file[o + i]) << (8 * i);
      return v;
    };
    program_size = rd64(16);
    base = rd64(24);
    // The fuzzers' mutator feeds arbitrary bytes here: the header must describe this file.
    if (program_size < 8 || program_size > file.size() || base > file.size())
      return false;
  }
  // Copy to aligned memory for the verifier's alignment checks.
  std::vector<uint64_t> aligned((program_size + 7) / 8);
  std::memcpy(aligned.data(), file.data(), program_size);
  const auto* data = reinterpret_cast<const uint8_t*>(aligned.data());
  flatbuffers::Verifier v(data, program_size);
  if (!fb::VerifyProgramBuffer(v) || !wide_vectors_aligned(fb::GetProgram(data)))
    return false;
  fb::GetProgram(data)->UnPackTo(program);
  segments->clear();
  for (const auto& s : program->segments) {
    if (base == 0 || s->size == 0) {
      segments->emplace_back();
      continue;
    }
    if (s->offset > file.size() - base || s->size > file.size() - base - s->offset)
      return false;
    segments->emplace_back(file.begin() + base + s->offset,
                           file.begin() + base + s->offset + s->size);
  }
  return true;
}

std::unique_ptr<fb::EValueT> tensor_value(fb::ScalarType dtype, std::vector<int32_t> sizes,
                                          std::vector<uint8_t> dim_order, uint32_t mem_id,
                                          uint64_t mem_offset, uint32_t data_buffer_idx) {
  fb::TensorT t;
  t.scalar_type = dtype;
  t.sizes = std::move(sizes);
  t.dim_order = std::move(dim_order);
  t.data_buffer_idx = data_buffer_idx;
  if (mem_id != 0) {
    t.allocation_info = std::make_unique<fb::AllocationDetailsT>();
    t.allocation_info->memory_id = mem_id;
    t.allocation_info->memory_offset_low = uint32_t(mem_offset);
    t.allocation_info->memory_offset_high = uint32_t(mem_offset >> 32);
  }
  auto v = std::make_unique<fb::EValueT>();
  v->val.Set(std::move(t));
  return v;
}

std::unique_ptr<fb::EValueT> int_value(int64_t x) {
  fb::IntT i;
  i.int_val = x;
  auto v = std::make_unique<fb::EValueT>();
  v->val.Set(std::move(i));
  return v;
}

std::unique_ptr<fb::EValueT> null_value() {
  auto v = std::make_unique<fb::EValueT>();
  v->val.Set(fb::NullT());
  return v;
}

AddProgram make_add_program(bool legacy_constants) {
  AddProgram out;
  fb::ProgramT& p = out.program;
  auto plan = std::make_unique<fb::ExecutionPlanT>();
  plan->name = "forward";
  plan->container_meta_type = std::make_unique<fb::ContainerMetadataT>();
  plan->container_meta_type->encoded_inp_str = "in-spec";
  plan->container_meta_type->encoded_out_str = "out-spec";
  plan->values.push_back(tensor_value(fb::ScalarType::FLOAT, {2, 2}, {0, 1}, 1, 0));
  plan->values.push_back(tensor_value(fb::ScalarType::FLOAT, {2, 2}, {0, 1}, 1, 16));
  plan->values.push_back(tensor_value(fb::ScalarType::FLOAT, {2, 2}, {0, 1}, 1, 32));
  plan->values.push_back(int_value(1));
  plan->values.push_back(tensor_value(fb::ScalarType::FLOAT, {2}, {0}, 0, 0, 1));
  plan->inputs = {0, 1};
  plan->outputs = {2};
  auto op = std::make_unique<fb::OperatorT>();
  op->name = "aten::add";
  op->overload = "out";
  plan->operators.push_back(std::move(op));
  auto chain = std::make_unique<fb::ChainT>();
  auto ins = std::make_unique<fb::InstructionT>();
  fb::KernelCallT kc;
  kc.op_index = 0;
  kc.args = {0, 1, 3, 2, 2};
  ins->instr_args.Set(std::move(kc));
  chain->instructions.push_back(std::move(ins));
  plan->chains.push_back(std::move(chain));
  plan->non_const_buffer_sizes = {0, 48};
  p.execution_plan.push_back(std::move(plan));

  const float w[2] = {1.0f, 2.0f};
  std::vector<uint8_t> wbytes(8);
  std::memcpy(wbytes.data(), w, 8);
  if (legacy_constants) {
    p.constant_buffer.push_back(std::make_unique<fb::BufferT>());  // reserved
    auto b = std::make_unique<fb::BufferT>();
    b->storage = wbytes;
    p.constant_buffer.push_back(std::move(b));
    p.constant_segment = std::make_unique<fb::SubsegmentOffsetsT>();
    out.segments.emplace_back();  // {0,0} like real files
    p.constant_segment->offsets = {0};
  } else {
    p.constant_segment = std::make_unique<fb::SubsegmentOffsetsT>();
    p.constant_segment->segment_index = 0;
    p.constant_segment->offsets = {0, 0};
    out.segments.push_back(wbytes);
  }
  return out;
}

PteFile add_pte(const WriteOptions& opts) {
  AddProgram a = make_add_program();
  return write_pte(std::move(a.program), a.segments, opts);
}

AlignedBytes::AlignedBytes(const std::vector<uint8_t>& bytes) {
  size = bytes.size();
  data = static_cast<uint8_t*>(std::aligned_alloc(64, (size + 63) / 64 * 64 + 64));
  if (size > 0)
    std::memcpy(data, bytes.data(), size);
}

}  // namespace et_test
