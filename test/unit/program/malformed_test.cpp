// Every malformed-file case gets a clean error whose log
// line names the field. Each case mutates a valid program built by the test
// writer, and is run under both verification levels (under Minimal the
// per-method checks run where load_method runs them).
#include <cstring>
#include <functional>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "test_util.h"

using namespace et_test;

namespace {

struct Case {
  const char* name;
  std::function<std::vector<uint8_t>()> make;
  Error expected;
  const char* log_needle;  // must appear in the captured log
};

std::vector<uint8_t> with(std::function<void(AddProgram&)> edit, WriteOptions o = {}) {
  AddProgram a = make_add_program();
  edit(a);
  return write_pte(std::move(a.program), a.segments, o).bytes;
}

std::vector<uint8_t> patched(std::function<void(PteFile&)> patch) {
  PteFile f = add_pte();
  patch(f);
  return f.bytes;
}

fb::ExecutionPlanT& plan(AddProgram& a) {
  return *a.program.execution_plan[0];
}

fb::TensorT& tensor(AddProgram& a, size_t v) {
  return *plan(a).values[v]->val.AsTensor();
}

fb::KernelCallT& kcall(AddProgram& a) {
  return *plan(a).chains[0]->instructions[0]->instr_args.AsKernelCall();
}

void add_instruction(AddProgram& a, fb::InstructionArgumentsUnion u) {
  auto ins = std::make_unique<fb::InstructionT>();
  ins->instr_args = std::move(u);
  plan(a).chains[0]->instructions.push_back(std::move(ins));
}

template <typename T>
fb::InstructionArgumentsUnion instr(T v) {
  fb::InstructionArgumentsUnion u;
  u.Set(std::move(v));
  return u;
}

void add_value(AddProgram& a, std::unique_ptr<fb::EValueT> v) {
  plan(a).values.push_back(std::move(v));
}

template <typename T>
std::unique_ptr<fb::EValueT> value(T v) {
  auto e = std::make_unique<fb::EValueT>();
  e->val.Set(std::move(v));
  return e;
}

void add_delegate(AddProgram& a, fb::DataLocation loc, uint32_t index, const char* id = "B") {
  auto d = std::make_unique<fb::BackendDelegateT>();
  if (id != nullptr)
    d->id = id;
  d->processed = std::make_unique<fb::BackendDelegateDataReferenceT>();
  d->processed->location = loc;
  d->processed->index = index;
  plan(a).delegates.push_back(std::move(d));
}

// Zero one vtable entry of a table in a packed file: the field reads as
// absent. (Vtables may be shared; the tests only need one bad table.)
void drop_field(std::vector<uint8_t>& bytes, const flatbuffers::Table* t,
                flatbuffers::voffset_t field) {
  const uint8_t* tp = reinterpret_cast<const uint8_t*>(t);
  int32_t soff;
  std::memcpy(&soff, tp, 4);
  uint8_t* vt = const_cast<uint8_t*>(tp - soff);
  uint16_t vsize;
  std::memcpy(&vsize, vt, 2);
  ASSERT_LT(field, vsize);
  (void)bytes;
  vt[field] = 0;
  vt[field + 1] = 0;
}

// Overwrite a present 1-byte scalar field (e.g. a union's type) in place.
void set_u8_field(const void* table, flatbuffers::voffset_t field, uint8_t v) {
  const uint8_t* tp = static_cast<const uint8_t*>(table);
  int32_t soff;
  std::memcpy(&soff, tp, 4);
  const uint8_t* vt = tp - soff;
  uint16_t entry;
  std::memcpy(&entry, vt + field, 2);
  ASSERT_NE(entry, 0);
  const_cast<uint8_t*>(tp)[entry] = v;
}

fb::Program* mut(PteFile& f) {
  return fb::GetMutableProgram(f.bytes.data());
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // 1 file size
      {"file_0_bytes", [] { return std::vector<uint8_t>{}; }, Error::InvalidProgram,
       "file too small"},
      {"file_7_bytes", [] { return patched([](PteFile& f) { f.bytes.resize(7); }); },
       Error::InvalidProgram, "file too small"},
      // 2 identifier
      {"identifier_ET11",
       [] { return patched([](PteFile& f) { std::memcpy(&f.bytes[4], "ET11", 4); }); },
       Error::InvalidProgram, "identifier"},
      {"identifier_XXXX",
       [] { return patched([](PteFile& f) { std::memcpy(&f.bytes[4], "XXXX", 4); }); },
       Error::InvalidProgram, "identifier"},
      // 3 root offset
      {"root_offset_ffffffff", [] { return patched([](PteFile& f) { f.put32(0, 0xFFFFFFFFu); }); },
       Error::InvalidProgram, "root offset"},
      {"root_offset_0", [] { return patched([](PteFile& f) { f.put32(0, 0); }); },
       Error::InvalidProgram, "root offset"},
      {"root_offset_4", [] { return patched([](PteFile& f) { f.put32(0, 4); }); },
       Error::InvalidProgram, "root offset"},
      // 4 header length
      {"header_length_0", [] { return patched([](PteFile& f) { f.put32(12, 0); }); },
       Error::InvalidProgram, "header_length"},
      {"header_length_23", [] { return patched([](PteFile& f) { f.put32(12, 23); }); },
       Error::InvalidProgram, "header_length"},
      // 5, 6 program_size
      {"program_size_past_eof",
       [] { return patched([](PteFile& f) { f.put64(16, f.bytes.size() + 1); }); },
       Error::InvalidProgram, "program_size"},
      {"program_size_below_8", [] { return patched([](PteFile& f) { f.put64(16, 7); }); },
       Error::InvalidProgram, "program_size"},
      {"program_size_2g",
       [] { return patched([](PteFile& f) { f.put64(16, uint64_t(1) << 31); }); },
       Error::InvalidProgram, "program_size"},
      // 7 base + size wraps
      {"segment_area_wraps",
       [] { return patched([](PteFile& f) { f.put64(32, ~uint64_t(0) - 8); }); },
       Error::InvalidProgram, "overflows"},
      // 8 base overlaps / past the file
      {"segment_base_overlaps",
       [] { return patched([](PteFile& f) { f.put64(24, f.program_size - 8); }); },
       Error::InvalidProgram, "segment_base_offset"},
      {"segment_base_past_eof",
       [] { return patched([](PteFile& f) { f.put64(24, f.bytes.size() + 128); }); },
       Error::InvalidProgram, "segment_base_offset"},
      // 9 truncation
      {"truncated_in_segment", [] { return patched([](PteFile& f) { f.bytes.pop_back(); }); },
       Error::InvalidProgram, "truncated"},
      {"truncated_half_no_header",
       [] {
         AddProgram a = make_add_program(true);
         auto b = write_pte(std::move(a.program), a.segments).bytes;
         b.resize(b.size() / 2);
         return b;
       },
       Error::InvalidProgram, "verification failed"},
      // 10 vector length / vtable outside the buffer
      {"vector_length_huge",
       [] {
         return patched([](PteFile& f) {
           const auto* plans = mut(f)->execution_plan();
           size_t pos = reinterpret_cast<const uint8_t*>(plans) - f.bytes.data();
           f.put32(pos, 0x7FFFFFFF);
         });
       },
       Error::InvalidProgram, "verification failed"},
      {"vtable_outside",
       [] {
         return patched([](PteFile& f) {
           size_t root = f.get32(0);
           f.put32(root, 0x7FFFFFF0);
         });
       },
       Error::InvalidProgram, "verification failed"},
      // 12 unknown EValue union tag
      {"evalue_tag_200",
       [] {
         return patched([](PteFile& f) {
           set_u8_field(mut(f)->execution_plan()->Get(0)->values()->Get(3), fb::EValue::VT_VAL_TYPE,
                        200);
         });
       },
       Error::InvalidProgram, "unknown value type"},
      {"evalue_tag_none",
       [] {
         return patched([](PteFile& f) {
           set_u8_field(mut(f)->execution_plan()->Get(0)->values()->Get(3), fb::EValue::VT_VAL_TYPE,
                        0);
         });
       },
       Error::InvalidProgram, "unknown value type"},
      // 13 unknown instruction tag
      {"instruction_tag_99",
       [] {
         return patched([](PteFile& f) {
           set_u8_field(mut(f)->execution_plan()->Get(0)->chains()->Get(0)->instructions()->Get(0),
                        fb::Instruction::VT_INSTR_ARGS_TYPE, 99);
         });
       },
       Error::InvalidProgram, "unknown instruction"},
      // 14 required tables missing
      {"no_values",
       [] {
         return patched([](PteFile& f) {
           drop_field(f.bytes,
                      reinterpret_cast<const flatbuffers::Table*>(mut(f)->execution_plan()->Get(0)),
                      fb::ExecutionPlan::VT_VALUES);
         });
       },
       Error::InvalidProgram, "values is missing"},
      {"no_chains",
       [] {
         return patched([](PteFile& f) {
           drop_field(f.bytes,
                      reinterpret_cast<const flatbuffers::Table*>(mut(f)->execution_plan()->Get(0)),
                      fb::ExecutionPlan::VT_CHAINS);
         });
       },
       Error::InvalidProgram, "chains is missing"},
      {"no_plan_name",
       [] {
         return patched([](PteFile& f) {
           drop_field(f.bytes,
                      reinterpret_cast<const flatbuffers::Table*>(mut(f)->execution_plan()->Get(0)),
                      fb::ExecutionPlan::VT_NAME);
         });
       },
       Error::InvalidProgram, "name is missing"},
      {"no_inputs",
       [] {
         return patched([](PteFile& f) {
           drop_field(f.bytes,
                      reinterpret_cast<const flatbuffers::Table*>(mut(f)->execution_plan()->Get(0)),
                      fb::ExecutionPlan::VT_INPUTS);
         });
       },
       Error::InvalidProgram, "inputs is missing"},
      {"no_non_const_buffer_sizes",
       [] {
         return patched([](PteFile& f) {
           drop_field(f.bytes,
                      reinterpret_cast<const flatbuffers::Table*>(mut(f)->execution_plan()->Get(0)),
                      fb::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES);
         });
       },
       Error::InvalidProgram, "non_const_buffer_sizes is missing"},
      {"no_tensor_sizes",
       [] {
         return patched([](PteFile& f) {
           drop_field(f.bytes,
                      reinterpret_cast<const flatbuffers::Table*>(
                          mut(f)->execution_plan()->Get(0)->values()->Get(0)->val_as_Tensor()),
                      fb::Tensor::VT_SIZES);
         });
       },
       Error::InvalidProgram, "Tensor.sizes is missing"},
      {"no_tensor_dim_order",
       [] {
         return patched([](PteFile& f) {
           drop_field(f.bytes,
                      reinterpret_cast<const flatbuffers::Table*>(
                          mut(f)->execution_plan()->Get(0)->values()->Get(0)->val_as_Tensor()),
                      fb::Tensor::VT_DIM_ORDER);
         });
       },
       Error::InvalidProgram, "Tensor.dim_order is missing"},
      {"no_instructions",
       [] {
         return patched([](PteFile& f) {
           drop_field(f.bytes,
                      reinterpret_cast<const flatbuffers::Table*>(
                          mut(f)->execution_plan()->Get(0)->chains()->Get(0)),
                      fb::Chain::VT_INSTRUCTIONS);
         });
       },
       Error::InvalidProgram, "instructions is missing"},
      // 15, 16 segments
      {"segment_offset_overflow",
       [] {
         return with([](AddProgram&) {}, WriteOptions{false, false, 128, [](fb::ProgramT& p) {
                                                        p.segments[0]->offset = ~uint64_t(0) - 8;
                                                      }});
       },
       Error::InvalidProgram, "segments[0]"},
      {"segment_past_eof_by_1",
       [] {
         return with([](AddProgram&) {}, WriteOptions{false, false, 128, [](fb::ProgramT& p) {
                                                        p.segments[0]->size += 1;
                                                      }});
       },
       Error::InvalidProgram, "segments[0]"},
      // 17, 18 constant segment
      {"constant_segment_index",
       [] { return with([](AddProgram& a) { a.program.constant_segment->segment_index = 1; }); },
       Error::InvalidProgram, "constant_segment.segment_index"},
      {"constant_offset_past_segment",
       [] { return with([](AddProgram& a) { a.program.constant_segment->offsets[1] = 9; }); },
       Error::InvalidProgram, "constant_segment.offsets[1]"},
      {"constant_nbytes_past_segment",
       [] { return with([](AddProgram& a) { a.program.constant_segment->offsets[1] = 1; }); },
       Error::InvalidProgram, "constant_segment.offsets[1]"},
      {"constant_buffer_and_segment",
       [] {
         return with([](AddProgram& a) {
           a.program.constant_buffer.push_back(std::make_unique<fb::BufferT>());
         });
       },
       Error::InvalidProgram, "constant_buffer must be empty"},
      // 19 data_buffer_idx
      {"data_buffer_idx_2",
       [] { return with([](AddProgram& a) { tensor(a, 4).data_buffer_idx = 2; }); },
       Error::InvalidProgram, "data_buffer_idx 2"},
      {"data_buffer_idx_max",
       [] { return with([](AddProgram& a) { tensor(a, 4).data_buffer_idx = 0xFFFFFFFFu; }); },
       Error::InvalidProgram, "data_buffer_idx 4294967295"},
      // 20 delegate payload reference
      {"delegate_inline_index",
       [] { return with([](AddProgram& a) { add_delegate(a, fb::DataLocation::INLINE, 0); }); },
       Error::InvalidProgram, "processed.index"},
      {"delegate_segment_index",
       [] { return with([](AddProgram& a) { add_delegate(a, fb::DataLocation::SEGMENT, 5); }); },
       Error::InvalidProgram, "processed.index"},
      {"delegate_location_7",
       [] {
         return with([](AddProgram& a) { add_delegate(a, static_cast<fb::DataLocation>(7), 0); });
       },
       Error::InvalidProgram, "processed.location"},
      // 21 named data
      {"named_data_segment_index",
       [] {
         return with([](AddProgram& a) {
           auto n = std::make_unique<fb::NamedDataT>();
           n->key = "k";
           n->segment_index = 3;
           a.program.named_data.push_back(std::move(n));
         });
       },
       Error::InvalidProgram, "named_data[0].segment_index"},
      {"named_data_duplicate_key",
       [] {
         return with([](AddProgram& a) {
           for (int i = 0; i < 2; ++i) {
             auto n = std::make_unique<fb::NamedDataT>();
             n->key = "dup";
             a.program.named_data.push_back(std::move(n));
           }
         });
       },
       Error::InvalidProgram, "duplicate key 'dup'"},
      // 22 mutable data segments
      {"mutable_segment_index",
       [] {
         return with([](AddProgram& a) {
           auto m = std::make_unique<fb::SubsegmentOffsetsT>();
           m->segment_index = 4;
           m->offsets = {0};
           a.program.mutable_data_segments.push_back(std::move(m));
         });
       },
       Error::InvalidProgram, "mutable_data_segments[0].segment_index"},
      {"mutable_offset_past_segment",
       [] {
         return with([](AddProgram& a) {
           auto m = std::make_unique<fb::SubsegmentOffsetsT>();
           m->segment_index = 0;
           m->offsets = {0, ~uint64_t(0)};
           a.program.mutable_data_segments.push_back(std::move(m));
         });
       },
       Error::InvalidProgram, "mutable_data_segments[0].offsets[1]"},
      {"mutable_tensor_past_segment",
       [] {
         return with([](AddProgram& a) {
           auto m = std::make_unique<fb::SubsegmentOffsetsT>();
           m->segment_index = 0;
           m->offsets = {0, 4};
           a.program.mutable_data_segments.push_back(std::move(m));
           tensor(a, 0).data_buffer_idx = 1;
         });
       },
       Error::InvalidProgram, "mutable_data_segments[0].offsets[1] 4 + nbytes 16"},
      {"mutable_without_segments",
       [] { return with([](AddProgram& a) { tensor(a, 0).data_buffer_idx = 1; }); },
       Error::InvalidProgram, "mutable_data_segments[0]"},
      // 23..30 tensors
      {"size_negative", [] { return with([](AddProgram& a) {
                               tensor(a, 2).sizes = {2, -1};
                             }); },
       Error::InvalidProgram, "values[2].Tensor.sizes[1] = -1 is negative"},
      {"numel_overflow",
       [] {
         return with([](AddProgram& a) {
           tensor(a, 2).sizes = {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF};
           tensor(a, 2).dim_order = {0, 1, 2, 3};
         });
       },
       Error::InvalidProgram, "numel overflow"},
      {"rank_17",
       [] {
         return with([](AddProgram& a) {
           tensor(a, 2).sizes.assign(17, 1);
           tensor(a, 2).dim_order.clear();
           for (uint8_t i = 0; i < 17; ++i)
             tensor(a, 2).dim_order.push_back(i);
         });
       },
       Error::InvalidProgram, "rank 17 too large"},
      {"dim_order_length", [] { return with([](AddProgram& a) { tensor(a, 2).dim_order = {0}; }); },
       Error::InvalidProgram, "dim_order has 1 entries"},
      {"dim_order_repeat",
       [] { return with([](AddProgram& a) {
              tensor(a, 2).dim_order = {0, 0};
            }); },
       Error::InvalidProgram, "not a permutation"},
      {"dim_order_out_of_rank",
       [] { return with([](AddProgram& a) {
              tensor(a, 2).dim_order = {0, 2};
            }); },
       Error::InvalidProgram, "not a permutation"},
      {"scalar_type_99",
       [] {
         return with(
             [](AddProgram& a) { tensor(a, 2).scalar_type = static_cast<fb::ScalarType>(99); });
       },
       Error::InvalidProgram, "scalar_type 99"},
      {"scalar_type_undefined",
       [] {
         return with(
             [](AddProgram& a) { tensor(a, 2).scalar_type = static_cast<fb::ScalarType>(30); });
       },
       Error::InvalidProgram, "scalar_type 30"},
      {"storage_offset_1",
       [] { return with([](AddProgram& a) { tensor(a, 2).storage_offset = 1; }); },
       Error::NotSupported, "storage_offset 1"},
      {"shape_dynamism_7",
       [] {
         return with([](AddProgram& a) {
           tensor(a, 2).shape_dynamism = static_cast<fb::TensorShapeDynamism>(7);
         });
       },
       Error::InvalidProgram, "shape_dynamism 7"},
      {"external_without_fqn",
       [] {
         return with([](AddProgram& a) {
           tensor(a, 4).extra_tensor_info = std::make_unique<fb::ExtraTensorInfoT>();
           tensor(a, 4).extra_tensor_info->location = fb::TensorDataLocation::EXTERNAL;
         });
       },
       Error::InvalidProgram, "fully_qualified_name is missing"},
      // 31, 32 planned memory
      {"memory_id_0",
       [] { return with([](AddProgram& a) { tensor(a, 2).allocation_info->memory_id = 0; }); },
       Error::InvalidProgram, "memory_id 0"},
      {"memory_id_past_arenas",
       [] { return with([](AddProgram& a) { tensor(a, 2).allocation_info->memory_id = 2; }); },
       Error::InvalidProgram, "memory_id 2"},
      {"planned_past_arena_by_1",
       [] {
         return with([](AddProgram& a) { tensor(a, 2).allocation_info->memory_offset_low = 33; });
       },
       Error::InvalidProgram, "offset 33 + nbytes 16"},
      {"planned_offset_huge",
       [] {
         return with([](AddProgram& a) {
           tensor(a, 2).allocation_info->memory_offset_low = 0xFFFFFFF8u;
           tensor(a, 2).allocation_info->memory_offset_high = 0xFFFFFFFFu;
         });
       },
       Error::InvalidProgram, "allocation_info"},
      // 33 arena sizes
      {"arena_size_negative",
       [] { return with([](AddProgram& a) {
              plan(a).non_const_buffer_sizes = {0, -1};
            }); },
       Error::InvalidProgram, "non_const_buffer_sizes[1] = -1"},
      {"arena_sizes_wrap",
       [] {
         return with([](AddProgram& a) {
           plan(a).non_const_buffer_sizes = {0, 48, std::numeric_limits<int64_t>::max()};
         });
       },
       Error::InvalidProgram, "total overflows"},
      // 34, 35 list items
      {"intlist_item_minus_1",
       [] {
         return with([](AddProgram& a) {
           fb::IntListT l;
           l.items = {3, -1};
           add_value(a, value(std::move(l)));
         });
       },
       Error::InvalidProgram, "IntList.items[1] = -1"},
      {"intlist_item_n",
       [] {
         return with([](AddProgram& a) {
           fb::IntListT l;
           l.items = {6};
           add_value(a, value(std::move(l)));
         });
       },
       Error::InvalidProgram, "IntList.items[0] = 6"},
      {"tensorlist_item_n",
       [] {
         return with([](AddProgram& a) {
           fb::TensorListT l;
           l.items = {0, 6};
           add_value(a, value(std::move(l)));
         });
       },
       Error::InvalidProgram, "TensorList.items[1] = 6"},
      {"tensorlist_item_int",
       [] {
         return with([](AddProgram& a) {
           fb::TensorListT l;
           l.items = {3};
           add_value(a, value(std::move(l)));
         });
       },
       Error::InvalidProgram, "not a tensor"},
      {"optional_tensorlist_item_minus_2",
       [] {
         return with([](AddProgram& a) {
           fb::OptionalTensorListT l;
           l.items = {-1, -2};
           add_value(a, value(std::move(l)));
         });
       },
       Error::InvalidProgram, "OptionalTensorList.items[1] = -2"},
      // 36 payload missing
      {"int_payload_missing",
       [] {
         return patched([](PteFile& f) {
           drop_field(f.bytes,
                      reinterpret_cast<const flatbuffers::Table*>(
                          mut(f)->execution_plan()->Get(0)->values()->Get(3)),
                      fb::EValue::VT_VAL);
         });
       },
       Error::InvalidProgram, "payload is missing"},
      // 37 inputs / outputs
      {"input_out_of_range", [] { return with([](AddProgram& a) {
                                    plan(a).inputs = {0, 5};
                                  }); },
       Error::InvalidProgram, "inputs[1] = 5"},
      {"output_negative", [] { return with([](AddProgram& a) { plan(a).outputs = {-1}; }); },
       Error::InvalidProgram, "outputs[0] = -1"},
      // 38, 39 kernel calls
      {"op_index_minus_1", [] { return with([](AddProgram& a) { kcall(a).op_index = -1; }); },
       Error::InvalidProgram, "op_index -1"},
      {"op_index_n", [] { return with([](AddProgram& a) { kcall(a).op_index = 1; }); },
       Error::InvalidProgram, "op_index 1"},
      {"kernel_arg_minus_1", [] { return with([](AddProgram& a) { kcall(a).args[2] = -1; }); },
       Error::InvalidProgram, "KernelCall.args[2] = -1"},
      {"kernel_arg_n", [] { return with([](AddProgram& a) { kcall(a).args[4] = 5; }); },
       Error::InvalidProgram, "KernelCall.args[4] = 5"},
      // 40 operator name
      {"operator_name_null",
       [] { return with([](AddProgram& a) { plan(a).operators[0]->name.clear(); }); },
       Error::InvalidProgram, "operators[0].name is missing"},
      // 42, 43 delegates
      {"delegate_index_n",
       [] {
         return with([](AddProgram& a) {
           fb::DelegateCallT d;
           d.delegate_index = 0;
           d.args = {0};
           add_instruction(a, instr(std::move(d)));
         });
       },
       Error::InvalidProgram, "delegate_index 0"},
      {"delegate_id_null",
       [] {
         return with([](AddProgram& a) {
           a.segments.push_back({1});
           add_delegate(a, fb::DataLocation::SEGMENT, 1, nullptr);
         });
       },
       Error::InvalidProgram, "delegates[0].id is missing"},
      // 44 jumps
      {"jump_cond_out_of_range",
       [] {
         return with([](AddProgram& a) {
           fb::JumpFalseCallT j;
           j.cond_value_index = 9;
           add_instruction(a, instr(std::move(j)));
         });
       },
       Error::InvalidProgram, "JumpFalseCall.cond_value_index"},
      {"jump_destination_minus_1",
       [] {
         return with([](AddProgram& a) {
           fb::JumpFalseCallT j;
           j.cond_value_index = 3;
           j.destination_instruction = -1;
           add_instruction(a, instr(std::move(j)));
         });
       },
       Error::InvalidProgram, "destination_instruction -1"},
      {"jump_destination_past_end",
       [] {
         return with([](AddProgram& a) {
           fb::JumpFalseCallT j;
           j.cond_value_index = 3;
           j.destination_instruction = 3;
           add_instruction(a, instr(std::move(j)));
         });
       },
       Error::InvalidProgram, "destination_instruction 3"},
      // 46 move / free
      {"move_to_out_of_range",
       [] {
         return with([](AddProgram& a) {
           fb::MoveCallT m;
           m.move_from = 0;
           m.move_to = 5;
           add_instruction(a, instr(std::move(m)));
         });
       },
       Error::InvalidProgram, "MoveCall.move_to"},
      {"free_out_of_range",
       [] {
         return with([](AddProgram& a) {
           fb::FreeCallT fr;
           fr.value_index = -3;
           add_instruction(a, instr(std::move(fr)));
         });
       },
       Error::InvalidProgram, "FreeCall.value_index"},
      {"free_on_int",
       [] {
         return with([](AddProgram& a) {
           fb::FreeCallT fr;
           fr.value_index = 3;
           add_instruction(a, instr(std::move(fr)));
         });
       },
       Error::InvalidProgram, "not a tensor"},
      // Storage and aliasing rules (values: 0, 1 planned inputs, 2 planned
      // output, 3 Int alpha, 4 constant weight; add.out(0, 1, 3, out=2, ret=2)).
      {"free_on_input",
       [] {
         return with([](AddProgram& a) {
           fb::FreeCallT fr;
           fr.value_index = 0;
           add_instruction(a, instr(std::move(fr)));
         });
       },
       Error::InvalidProgram,
       "FreeCall: value 0 (planned, plan input) is not a planned intermediate"},
      {"free_on_constant",
       [] {
         return with([](AddProgram& a) {
           fb::FreeCallT fr;
           fr.value_index = 4;
           add_instruction(a, instr(std::move(fr)));
         });
       },
       Error::InvalidProgram, "FreeCall: value 4 (constant)"},
      {"free_on_unbacked",
       [] {
         return with([](AddProgram& a) {
           add_value(a, tensor_value(fb::ScalarType::FLOAT, {2}, {0}, 0, 0));
           fb::FreeCallT fr;
           fr.value_index = 5;
           add_instruction(a, instr(std::move(fr)));
         });
       },
       Error::InvalidProgram, "FreeCall: value 5 (unbacked)"},
      {"constant_as_plan_input",
       [] { return with([](AddProgram& a) {
              plan(a).inputs = {0, 4};
            }); }, Error::InvalidProgram,
       "inputs[1]: value 4 is a constant tensor"},
      {"tensor_without_storage",
       [] {
         return with([](AddProgram& a) {
           add_value(a, tensor_value(fb::ScalarType::FLOAT, {2, 2}, {0, 1}, 0, 0));
           kcall(a).args[0] = 5;
         });
       },
       Error::InvalidProgram, "KernelCall.args[0]: value 5 is a tensor without storage"},
      {"tensor_list_item_without_storage",
       [] {
         return with([](AddProgram& a) {
           add_value(a, tensor_value(fb::ScalarType::FLOAT, {2, 2}, {0, 1}, 0, 0));
           fb::TensorListT l;
           l.items = {0, 5};
           add_value(a, value(std::move(l)));
           kcall(a).args[1] = 6;
         });
       },
       Error::InvalidProgram, "value 5 is a tensor without storage"},
      {"move_changes_kind",
       [] {
         return with([](AddProgram& a) {
           fb::MoveCallT m;
           m.move_from = 4;
           m.move_to = 3;
           add_instruction(a, instr(std::move(m)));
         });
       },
       Error::InvalidProgram, "the kinds differ"},
      {"move_null_input_to_tensor",
       [] {
         return with([](AddProgram& a) {
           add_value(a, null_value());
           plan(a).inputs.push_back(5);
           fb::MoveCallT m;
           m.move_from = 4;
           m.move_to = 5;
           add_instruction(a, instr(std::move(m)));
         });
       },
       Error::InvalidProgram, "value 4 (Tensor) cannot move into value 5 (Null)"},
      {"move_constant",
       [] {
         return with([](AddProgram& a) {
           add_value(a, tensor_value(fb::ScalarType::FLOAT, {2}, {0}, 1, 0));
           fb::MoveCallT m;
           m.move_from = 4;
           m.move_to = 5;
           add_instruction(a, instr(std::move(m)));
         });
       },
       Error::InvalidProgram, "value 4 (constant) into value 5 (planned): only planned tensors"},
      {"move_into_plan_input",
       [] {
         return with([](AddProgram& a) {
           fb::MoveCallT m;
           m.move_from = 2;
           m.move_to = 0;
           add_instruction(a, instr(std::move(m)));
         });
       },
       Error::InvalidProgram, "the destination, value 0, is a plan input"},
      {"move_et_view_result",
       [] {
         return with([](AddProgram& a) {
           add_value(a, tensor_value(fb::ScalarType::FLOAT, {2}, {0}, 0, 0));
           fb::IntListT l;
           l.items = {3};
           add_value(a, value(std::move(l)));
           add_value(a, tensor_value(fb::ScalarType::FLOAT, {2}, {0}, 1, 0));
           auto op = std::make_unique<fb::OperatorT>();
           op->name = "executorch_prim::et_view";
           op->overload = "default";
           plan(a).operators.push_back(std::move(op));
           fb::KernelCallT k;
           k.op_index = 1;
           k.args = {4, 6, 5};
           add_instruction(a, instr(std::move(k)));
           fb::MoveCallT m;
           m.move_from = 5;
           m.move_to = 7;
           add_instruction(a, instr(std::move(m)));
         });
       },
       Error::InvalidProgram, "value 5 (unbacked, et_view result) into value 7 (planned)"},
      {"planned_offset_misaligned",
       [] {
         return with([](AddProgram& a) { tensor(a, 1).allocation_info->memory_offset_low = 18; });
       },
       Error::InvalidProgram, "offset 18 is not aligned to the element size 4"},
      {"constant_offset_misaligned",
       [] { return with([](AddProgram& a) {
              a.program.constant_segment->offsets = {0, 2};
            }); },
       Error::InvalidProgram,
       "constant_segment.offsets[1] = 2 is not aligned to the element size 4"},
      {"et_view_result_larger_than_self",
       [] {
         return with([](AddProgram& a) {
           auto big = tensor_value(fb::ScalarType::FLOAT, {100}, {0}, 0, 0);
           big->val.AsTensor()->shape_dynamism = fb::TensorShapeDynamism::DYNAMIC_BOUND;
           add_value(a, std::move(big));
           fb::IntListT l;
           l.items = {3};
           add_value(a, value(std::move(l)));
           auto op = std::make_unique<fb::OperatorT>();
           op->name = "executorch_prim::et_view";
           op->overload = "default";
           plan(a).operators.push_back(std::move(op));
           fb::KernelCallT k;
           k.op_index = 1;
           k.args = {4, 6, 5};
           add_instruction(a, instr(std::move(k)));
         });
       },
       Error::InvalidProgram,
       "value 5, can hold 400 bytes, more than the 8 bytes of the viewed value 4"},
      // 48 duplicate method names
      {"duplicate_method_names",
       [] {
         return with([](AddProgram& a) {
           AddProgram b = make_add_program();
           a.program.execution_plan.push_back(std::move(b.program.execution_plan[0]));
         });
       },
       Error::InvalidProgram, "duplicate method name 'forward'"},
  };
  return all;
}

class Malformed : public ::testing::TestWithParam<std::tuple<size_t, Verification>> {};

TEST_P(Malformed, CleanErrorNamingTheField) {
  const Case& c = cases()[std::get<0>(GetParam())];
  const Verification v = std::get<1>(GetParam());
  // duplicate method names are only checked up front.
  if (v == Verification::Minimal && std::string(c.name) == "duplicate_method_names") {
    GTEST_SKIP() << "Minimal loads the first method of a name";
  }
  std::vector<uint8_t> bytes = c.make();
  std::string log;
  EXPECT_EQ(load_error(bytes, v, &log), c.expected) << c.name << "\n" << log;
  EXPECT_NE(log.find(c.log_needle), std::string::npos)
      << c.name << ": log does not mention '" << c.log_needle << "':\n"
      << log;
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<size_t, Verification>>& info) {
  return std::string(cases()[std::get<0>(info.param)].name) +
         (std::get<1>(info.param) == Verification::Minimal ? "_Minimal" : "_Full");
}

INSTANTIATE_TEST_SUITE_P(UntrustedInput, Malformed,
                         ::testing::Combine(::testing::Range<size_t>(0, cases().size()),
                                            ::testing::Values(Verification::Minimal,
                                                              Verification::InternalConsistency)),
                         case_name);

TEST(MalformedExtra, NoExecutionPlan) {
  // Absent entirely: refused (the object API omits empty vectors, so
  // clearing the list is enough; dropping the field checks the same path).
  AddProgram a = make_add_program();
  a.program.execution_plan.clear();
  PteFile f = write_pte(std::move(a.program), a.segments);
  EXPECT_EQ(load_error(f.bytes, Verification::Minimal), Error::InvalidProgram);
  PteFile g = add_pte();
  drop_field(g.bytes, reinterpret_cast<const flatbuffers::Table*>(mut(g)),
             fb::Program::VT_EXECUTION_PLAN);
  std::string log;
  EXPECT_EQ(load_error(g.bytes, Verification::Minimal, &log), Error::InvalidProgram);
  EXPECT_NE(log.find("execution_plan is missing"), std::string::npos) << log;
}

TEST(MalformedExtra, NamedDataNullKey) {
  AddProgram a = make_add_program();
  auto n = std::make_unique<fb::NamedDataT>();
  n->key = "k";
  a.program.named_data.push_back(std::move(n));
  PteFile f = write_pte(std::move(a.program), a.segments);
  drop_field(f.bytes, reinterpret_cast<const flatbuffers::Table*>(mut(f)->named_data()->Get(0)),
             fb::NamedData::VT_KEY);
  std::string log;
  EXPECT_EQ(load_error(f.bytes, Verification::Minimal, &log), Error::InvalidProgram);
  EXPECT_NE(log.find("named_data[0].key is missing"), std::string::npos) << log;
}

TEST(MalformedExtra, TruncateEverySixteenth) {
  PteFile f = add_pte();
  for (int k = 0; k < 16; ++k) {
    std::vector<uint8_t> b(f.bytes.begin(), f.bytes.begin() + f.bytes.size() * k / 16);
    for (Verification v : {Verification::Minimal, Verification::InternalConsistency}) {
      std::string log;
      EXPECT_EQ(load_error(b, v, &log), Error::InvalidProgram) << "k=" << k << "\n" << log;
    }
  }
}

TEST(MalformedExtra, ByteSweepNeverCrashes) {
  // XOR / 0x00 / 0x80 at every byte of a small program (the ORT sweep):
  // every result is Ok or a clean error, never a crash (run under ASan).
  AddProgram a = make_add_program();
  PteFile f = write_pte(std::move(a.program), a.segments);
  size_t ok = 0;
  for (size_t i = 0; i < f.bytes.size(); ++i) {
    for (int mode = 0; mode < 3; ++mode) {
      std::vector<uint8_t> b = f.bytes;
      b[i] = mode == 0 ? uint8_t(b[i] ^ 0xFF) : mode == 1 ? 0x00 : 0x80;
      for (Verification v : {Verification::Minimal, Verification::InternalConsistency}) {
        LoadedProgram lp(b, v);
        if (lp.error == Error::Ok) {
          ++ok;
          const Program& p = *lp.program;
          for (size_t m = 0; m < p.num_methods(); ++m) {
            // A name with a NUL byte mutated into it is not found by name.
            auto meta = p.method_meta(p.get_method_name(m).get());
            if (!meta.ok())
              continue;
            for (size_t k = 0; k < meta->num_inputs() + 1; ++k) {
              (void)meta->input_tensor_meta(k);
              (void)meta->output_tensor_meta(k);
            }
            (void)meta->num_attributes();
            (void)executorch::runtime::detail::validate_execution_plan(
                ProgramTestFriend::internal(p), m);
          }
          (void)p.get_constant_buffer_data(1, 8);
        }
      }
    }
  }
  EXPECT_GT(ok, 0u);  // padding/unused bytes do not matter
}

}  // namespace
