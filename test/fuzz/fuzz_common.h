// Shared pieces of the libFuzzer targets (test/fuzz/*_fuzzer.cpp): a silent log sink, an
// aligned copy of the input, and a Method loaded over bounded memory. Inputs are untrusted:
// every size the program declares is checked against the caps here before it is allocated,
// so a fuzzed "allocate 2^62 bytes" is a rejected input, not an out-of-memory report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

namespace fuzz {

// Planned arenas of one method, summed, above which the method is not loaded.
constexpr size_t kMaxPlannedBytes = size_t{64} << 20;
// The method allocator (values, tensor metadata, unplanned tensors) and the kernels' temp
// allocator are fixed pools, so runaway allocations fail inside the runtime.
constexpr size_t kMethodPoolBytes = size_t{16} << 20;
constexpr size_t kTempPoolBytes = size_t{16} << 20;

// Replaces the runtime's log sink with one that drops everything (logging every rejected
// input costs more than the parsing); FUZZ_VERBOSE=1 keeps the default sink. Idempotent.
void quiet_logs();

// True when ET_FUZZ_TRACE is set (and not "0"): targets then print what each input did, for
// triage (run the fuzzer on the one input).
bool tracing();

// The input bytes in max-aligned memory (the loaders expect aligned buffers, like an mmap).
class AlignedInput {
 public:
  AlignedInput(const uint8_t* data, size_t size);
  const uint8_t* data() const {
    return reinterpret_cast<const uint8_t*>(storage_.data());
  }
  size_t size() const {
    return size_;
  }

 private:
  std::vector<std::max_align_t> storage_;
  size_t size_;
};

// A Method with the memory it runs in. `method` is null when loading failed (or the method
// asked for more planned memory than kMaxPlannedBytes).
struct LoadedMethod {
  std::vector<std::vector<uint8_t>> planned;
  std::vector<executorch::runtime::Span<uint8_t>> planned_spans;
  std::unique_ptr<executorch::runtime::MemoryAllocator> method_allocator;
  std::unique_ptr<executorch::runtime::MemoryAllocator> temp_allocator;
  std::unique_ptr<executorch::runtime::HierarchicalAllocator> planned_memory;
  std::unique_ptr<executorch::runtime::MemoryManager> memory_manager;
  std::unique_ptr<executorch::runtime::Method> method;
};

std::unique_ptr<LoadedMethod> load_method(
    const executorch::runtime::Program& program, const char* name,
    const executorch::runtime::NamedDataMap* data_map = nullptr);

// Reads every accessor of the method's metadata (each index the meta reports, and one past).
void walk_method_meta(const executorch::runtime::MethodMeta& meta);

// Inputs for one call, synthesized from the method's metadata: each tensor input gets its
// serialized sizes and dtype with small deterministic values (integers in [0, 3), floats in
// [-2, 2)); every other input is set back to the value the program holds.
class SynthesizedInputs {
 public:
  // False when an input could not be built or was refused (a rejected input, not a bug).
  bool set(executorch::runtime::Method& method);
  // Gives every tensor output the program did not plan memory for a buffer of its nbytes, as
  // a correct caller must (set_output_data_ptr). False when one is refused.
  bool set_unplanned_outputs(executorch::runtime::Method& method);

 private:
  std::vector<std::unique_ptr<executorch::aten::TensorImpl>> impls_;
  std::vector<std::vector<int32_t>> sizes_;
  std::vector<std::vector<uint8_t>> dim_orders_;
  std::vector<std::vector<std::max_align_t>> buffers_;
};

// Tensor bytes above which synthesized inputs are refused.
constexpr size_t kMaxInputBytes = size_t{16} << 20;

}  // namespace fuzz
