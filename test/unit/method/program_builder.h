// Builds small one-method .pte programs in memory with the generated
// flatbuffers builder, and loads them (Program + Method over owned memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include <executorch_schema/program_generated.h>

namespace test {

namespace fb = ::executorch_flatbuffer;

struct TensorSpec {
  int8_t dtype = 6;  // Float
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;  // empty: contiguous
  uint32_t mem_id = 0;             // 0: not planned
  uint64_t offset = 0;
  uint32_t data_buffer_idx = 0;
  int8_t dynamism = 0;
  int32_t storage_offset = 0;
  std::string fqn;
  bool external = false;
  bool omit_dim_order = false;
};

class ProgramBuilder {
 public:
  // ---- values (each returns its value index)
  int null_value() {
    return add([](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateEValue(b, fb::KernelTypes::Null, fb::CreateNull(b).Union());
    });
  }
  int int_value(int64_t v) {
    return add([v](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateEValue(b, fb::KernelTypes::Int, fb::CreateInt(b, v).Union());
    });
  }
  int bool_value(bool v) {
    return add([v](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateEValue(b, fb::KernelTypes::Bool, fb::CreateBool(b, v).Union());
    });
  }
  int double_value(double v) {
    return add([v](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateEValue(b, fb::KernelTypes::Double, fb::CreateDouble(b, v).Union());
    });
  }
  int string_value(const std::string& s) {
    return add([s](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateEValue(b, fb::KernelTypes::String,
                              fb::CreateStringDirect(b, s.c_str()).Union());
    });
  }
  int int_list(const std::vector<int64_t>& items) {
    return add([items](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateEValue(b, fb::KernelTypes::IntList,
                              fb::CreateIntListDirect(b, &items).Union());
    });
  }
  int double_list(const std::vector<double>& items) {
    return add([items](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateEValue(b, fb::KernelTypes::DoubleList,
                              fb::CreateDoubleListDirect(b, &items).Union());
    });
  }
  int bool_list(const std::vector<uint8_t>& items) {
    return add([items](flatbuffers::FlatBufferBuilder& b) {
      auto v = b.CreateVector(items);
      return fb::CreateEValue(b, fb::KernelTypes::BoolList, fb::CreateBoolList(b, v).Union());
    });
  }
  int tensor_list(const std::vector<int32_t>& items) {
    return add([items](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateEValue(b, fb::KernelTypes::TensorList,
                              fb::CreateTensorListDirect(b, &items).Union());
    });
  }
  int optional_tensor_list(const std::vector<int32_t>& items) {
    return add([items](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateEValue(b, fb::KernelTypes::OptionalTensorList,
                              fb::CreateOptionalTensorListDirect(b, &items).Union());
    });
  }
  int raw_value(uint8_t type) {  // a value of an arbitrary (e.g. unknown) kind
    return add([type](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateEValue(b, static_cast<fb::KernelTypes>(type), fb::CreateNull(b).Union());
    });
  }
  int tensor(const TensorSpec& spec) {
    return add([spec](flatbuffers::FlatBufferBuilder& b) {
      std::vector<uint8_t> order = spec.dim_order;
      if (order.empty() && !spec.omit_dim_order) {
        for (size_t i = 0; i < spec.sizes.size(); ++i) {
          order.push_back(static_cast<uint8_t>(i));
        }
      }
      flatbuffers::Offset<fb::AllocationDetails> alloc = 0;
      if (spec.mem_id != 0) {
        alloc = fb::CreateAllocationDetails(b, spec.mem_id, static_cast<uint32_t>(spec.offset),
                                            static_cast<uint32_t>(spec.offset >> 32));
      }
      flatbuffers::Offset<fb::ExtraTensorInfo> extra = 0;
      if (!spec.fqn.empty() || spec.external) {
        extra = fb::CreateExtraTensorInfoDirect(
            b, 0, spec.fqn.empty() ? nullptr : spec.fqn.c_str(),
            spec.external ? fb::TensorDataLocation::EXTERNAL : fb::TensorDataLocation::SEGMENT);
      }
      auto t = fb::CreateTensorDirect(
          b, static_cast<fb::ScalarType>(spec.dtype), spec.storage_offset, &spec.sizes,
          spec.omit_dim_order ? nullptr : &order, false, spec.data_buffer_idx, alloc, 0,
          static_cast<fb::TensorShapeDynamism>(spec.dynamism), extra);
      return fb::CreateEValue(b, fb::KernelTypes::Tensor, t.Union());
    });
  }

  // ---- operators, delegates, constants
  int op(const std::string& name, const std::string& overload) {
    ops_.push_back({name, overload});
    return static_cast<int>(ops_.size() - 1);
  }
  int delegate(const std::string& id, std::vector<uint8_t> inline_data) {
    delegate_data_.push_back(std::move(inline_data));
    delegates_.push_back({id, static_cast<uint32_t>(delegate_data_.size() - 1)});
    return static_cast<int>(delegates_.size() - 1);
  }
  /// A legacy inline constant (constant_buffer); returns its index (>= 1).
  uint32_t constant(const void* data, size_t nbytes) {
    if (constants_.empty()) {
      constants_.emplace_back();  // index 0 is reserved
    }
    const uint8_t* p = static_cast<const uint8_t*>(data);
    constants_.emplace_back(p, p + nbytes);
    return static_cast<uint32_t>(constants_.size() - 1);
  }

  // ---- instructions (chain 0 unless a new chain is started)
  void kernel(int op_index, std::vector<int32_t> args) {
    instr([op_index, args](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateInstruction(b, fb::InstructionArguments::KernelCall,
                                   fb::CreateKernelCallDirect(b, op_index, &args).Union());
    });
  }
  void delegate_call(int index, std::vector<int32_t> args) {
    instr([index, args](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateInstruction(b, fb::InstructionArguments::DelegateCall,
                                   fb::CreateDelegateCallDirect(b, index, &args).Union());
    });
  }
  void move(int from, int to) {
    instr([from, to](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateInstruction(b, fb::InstructionArguments::MoveCall,
                                   fb::CreateMoveCall(b, from, to).Union());
    });
  }
  void jump_false(int cond, int dest) {
    instr([cond, dest](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateInstruction(b, fb::InstructionArguments::JumpFalseCall,
                                   fb::CreateJumpFalseCall(b, cond, dest).Union());
    });
  }
  void free_call(int value) {
    instr([value](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateInstruction(b, fb::InstructionArguments::FreeCall,
                                   fb::CreateFreeCall(b, value).Union());
    });
  }
  void raw_instruction(uint8_t type) {
    instr([type](flatbuffers::FlatBufferBuilder& b) {
      return fb::CreateInstruction(b, static_cast<fb::InstructionArguments>(type),
                                   fb::CreateFreeCall(b, 0).Union());
    });
  }
  void new_chain() {
    chains_.emplace_back();
  }

  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<int64_t> buffer_sizes = {0};  // entry 0 reserved
  std::string name = "forward";
  bool omit_delegates = false;  // write no delegates vector at all

  /// Serialized bytes ("ET12", no extended header).
  std::vector<uint8_t> finish() const {
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<fb::EValue>> values;
    for (const auto& v : values_) {
      values.push_back(v(b));
    }
    std::vector<flatbuffers::Offset<fb::Operator>> ops;
    for (const auto& o : ops_) {
      ops.push_back(fb::CreateOperatorDirect(b, o.first.c_str(), o.second.c_str()));
    }
    std::vector<flatbuffers::Offset<fb::Chain>> chains;
    std::vector<std::vector<InstrFn>> all_chains = chains_;
    if (all_chains.empty()) {
      all_chains.emplace_back();  // every plan has at least one chain
    }
    for (const auto& c : all_chains) {
      std::vector<flatbuffers::Offset<fb::Instruction>> instrs;
      for (const auto& i : c) {
        instrs.push_back(i(b));
      }
      std::vector<int32_t> empty;
      chains.push_back(fb::CreateChainDirect(b, &empty, &empty, &instrs));
    }
    std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates;
    for (const auto& d : delegates_) {
      auto ref = fb::CreateBackendDelegateDataReference(b, fb::DataLocation::INLINE, d.second);
      std::vector<flatbuffers::Offset<fb::CompileSpec>> specs;
      std::vector<uint8_t> value = {1, 2, 3};
      specs.push_back(fb::CreateCompileSpecDirect(b, "key", &value));
      delegates.push_back(fb::CreateBackendDelegateDirect(b, d.first.c_str(), ref, &specs));
    }
    auto plan =
        fb::CreateExecutionPlanDirect(b, name.c_str(), 0, &values, &inputs, &outputs, &chains, &ops,
                                      omit_delegates ? nullptr : &delegates, &buffer_sizes);
    std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans = {plan};
    std::vector<flatbuffers::Offset<fb::Buffer>> constants;
    for (const auto& c : constants_) {
      b.ForceVectorAlignment(c.size(), 1, 16);
      auto v = b.CreateVector(c);
      constants.push_back(fb::CreateBuffer(b, v));
    }
    std::vector<flatbuffers::Offset<fb::BackendDelegateInlineData>> inline_data;
    for (const auto& d : delegate_data_) {
      b.ForceVectorAlignment(d.size(), 1, 16);
      auto v = b.CreateVector(d);
      inline_data.push_back(fb::CreateBackendDelegateInlineData(b, v));
    }
    auto prog = fb::CreateProgramDirect(b, 0, &plans, &constants, &inline_data);
    fb::FinishProgramBuffer(b, prog);
    return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  }

 private:
  using ValueFn = std::function<flatbuffers::Offset<fb::EValue>(flatbuffers::FlatBufferBuilder&)>;
  using InstrFn =
      std::function<flatbuffers::Offset<fb::Instruction>(flatbuffers::FlatBufferBuilder&)>;
  int add(ValueFn f) {
    values_.push_back(std::move(f));
    return static_cast<int>(values_.size() - 1);
  }
  void instr(InstrFn f) {
    if (chains_.empty()) {
      chains_.emplace_back();
    }
    chains_.back().push_back(std::move(f));
  }
  std::vector<ValueFn> values_;
  std::vector<std::pair<std::string, std::string>> ops_;
  std::vector<std::vector<InstrFn>> chains_;
  std::vector<std::pair<std::string, uint32_t>> delegates_;
  std::vector<std::vector<uint8_t>> delegate_data_;
  std::vector<std::vector<uint8_t>> constants_;
};

/// A loaded program with one method and the memory it runs in.
struct Loaded {
  std::vector<std::max_align_t> storage;  // program bytes, max-aligned
  std::unique_ptr<executorch::extension::BufferDataLoader> loader;
  std::unique_ptr<executorch::runtime::Program> program;
  std::vector<uint8_t> method_pool = std::vector<uint8_t>(1 << 20);
  std::vector<std::vector<uint8_t>> planned;
  std::vector<executorch::runtime::Span<uint8_t>> planned_spans;
  std::unique_ptr<executorch::runtime::MemoryAllocator> method_alloc;
  std::unique_ptr<executorch::runtime::HierarchicalAllocator> planned_memory;
  std::unique_ptr<executorch::runtime::MemoryManager> mm;
  std::unique_ptr<executorch::runtime::Method> method;
  executorch::runtime::Error program_error = executorch::runtime::Error::Ok;
  executorch::runtime::Error method_error = executorch::runtime::Error::Ok;
};

/// Loads `bytes` and its method `name`. Planned buffers are sized from the
/// method's meta (zero-filled).
inline std::unique_ptr<Loaded> load(const std::vector<uint8_t>& bytes, const char* name = "forward",
                                    const executorch::runtime::NamedDataMap* data_map = nullptr,
                                    executorch::runtime::Program::Verification verification =
                                        executorch::runtime::Program::Verification::Minimal) {
  using namespace executorch::runtime;
  auto l = std::make_unique<Loaded>();
  l->storage.resize(bytes.size() / sizeof(std::max_align_t) + 1);
  std::memcpy(l->storage.data(), bytes.data(), bytes.size());
  l->loader =
      std::make_unique<executorch::extension::BufferDataLoader>(l->storage.data(), bytes.size());
  Result<Program> p = Program::load(l->loader.get(), verification);
  if (!p.ok()) {
    l->program_error = p.error();
    return l;
  }
  l->program = std::make_unique<Program>(std::move(p.get()));
  Result<MethodMeta> meta = l->program->method_meta(name);
  if (!meta.ok()) {
    l->method_error = meta.error();
    return l;
  }
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    l->planned.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
  }
  for (auto& b : l->planned) {
    l->planned_spans.emplace_back(b.data(), b.size());
  }
  l->method_alloc = std::make_unique<MemoryAllocator>(static_cast<uint32_t>(l->method_pool.size()),
                                                      l->method_pool.data());
  l->planned_memory = std::make_unique<HierarchicalAllocator>(
      Span<Span<uint8_t>>(l->planned_spans.data(), l->planned_spans.size()));
  l->mm = std::make_unique<MemoryManager>(l->method_alloc.get(), l->planned_memory.get());
  Result<Method> m = l->program->load_method(name, l->mm.get(), nullptr, data_map);
  if (!m.ok()) {
    l->method_error = m.error();
    return l;
  }
  l->method = std::make_unique<Method>(std::move(m.get()));
  return l;
}

/// Output 0 (Float) of one run and how many instructions load-time preparation rewrote (and
/// how many values it switched to channels-last); the planned buffers after the run.
struct PreparedRun {
  std::vector<float> out;
  size_t prepared = 0;
  size_t channels_last = 0;
  std::vector<std::vector<uint8_t>> planned;
};

/// Loads `bytes` with load-time preparation on or off, fills each Float input with
/// fill(input index, data, numel), executes once. Failures are test failures (empty out).
inline PreparedRun run_with_prepare(const std::vector<uint8_t>& bytes, bool prepare,
                                    const std::function<void(size_t, float*, size_t)>& fill) {
  using namespace executorch::runtime;
  PreparedRun r;
  auto l = load(bytes);
  EXPECT_EQ(l->method_error, Error::Ok);
  if (l->method == nullptr) {
    return r;
  }
  l->method.reset();
  MethodLoadConfig config;
  config.prepare_constants = prepare;
  auto m = l->program->load_method("forward", l->mm.get(), config);
  EXPECT_EQ(m.error(), Error::Ok);
  if (!m.ok()) {
    return r;
  }
  for (size_t i = 0; i < m->inputs_size(); ++i) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    auto& t = m->mutable_input(i).toTensor();
#pragma GCC diagnostic pop
    fill(i, t.mutable_data_ptr<float>(), static_cast<size_t>(t.numel()));
  }
  EXPECT_EQ(m->execute(), Error::Ok);
  const auto& t = m->get_output(0).toTensor();
  r.out.assign(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
  r.prepared = m->prepared_instruction_count();
  r.channels_last = m->channels_last_value_count();
  r.planned = l->planned;
  return r;
}

}  // namespace test
