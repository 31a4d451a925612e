/*
 * The private structures of a loaded Method (private header).
 *
 * Method load turns the serialized ExecutionPlan into these structures, all
 * allocated from the method allocator, with every index already checked:
 * execution reads them without re-validating anything from the file.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/kernel/operator_registry.h>

namespace executorch_flatbuffer {
struct Chain;
struct Program;
}  // namespace executorch_flatbuffer

namespace executorch {
namespace runtime {
namespace internal {

/// One decoded instruction.
struct Instruction {
  /// Prepared: a kernel evaluated once at load (detail/prepare.h); execute()
  /// skips it.
  enum class Kind : uint8_t {
    Kernel,
    Delegate,
    Move,
    JumpFalse,
    Free,
    Prepared
  };
  Kind kind;
  /// Kernel: the resolved function.
  OpFunction kernel;
  /// Kernel: the operator name as resolved ("name.overload", or "name" when
  /// the overload is empty), for the EventTracer. Set only when the Method
  /// was loaded with a tracer (else null); points into the program's
  /// operator table or, with an overload, into method memory (one copy per
  /// operator).
  const char* op_name;
  /// Kernel/Delegate: argument pointers into the value table.
  InstructionArgs args;
  /// Kernel: the arguments that are constant tensors, as
  /// KernelRuntimeContext::internal_read_only_args() wants them.
  uint64_t read_only_args;
  /// Delegate: delegate index. Move: source. JumpFalse: condition value.
  /// Free: the value to free. All checked at load.
  size_t a;
  /// Move: destination. JumpFalse: destination instruction, at most the
  /// chain length (validation's rule; the chain length ends the chain).
  size_t b;
};

/// A chain: its instructions, decoded.
struct Chain {
  size_t n_instructions;
  Instruction* instructions;
};

/// A plan input the method writes in place (write_validation.h): the buffer
/// the caller bound must hold the input's capacity, which set_input checks
/// when it records the binding; execute refuses any other binding.
struct InputWrite {
  bool written;
  const void* bound_data;  // what set_input bound, after checking its size
};

/// One constant tensor blob fetched by name from the external data map.
struct ExternalConstant {
  const char* key;  // NUL-terminated, points into the flatbuffer
  FreeableBuffer buffer;
};

/// Allocates an uninitialized array of `n` T from `allocator`; null on
/// overflow or exhaustion. `n == 0` yields a valid one-element block so that
/// callers can tell success from failure by the pointer.
template <typename T>
T* allocate_array(MemoryAllocator* allocator, size_t n) {
  if (allocator == nullptr) {
    return nullptr;
  }
  const size_t count = n == 0 ? 1 : n;
  if (count > SIZE_MAX / sizeof(T)) {
    return nullptr;
  }
  return static_cast<T*>(allocator->allocate(count * sizeof(T), alignof(T)));
}

/// What value and tensor parsing need from the method being loaded.
struct LoadContext {
  const Program* program;
  const executorch_flatbuffer::Program* fb_program;
  MemoryAllocator* method_allocator;
  HierarchicalAllocator* planned_memory;  // may be null
  const NamedDataMap* external_map;       // user-supplied; may be null
  ExternalConstant* external_constants;
  size_t n_external_constants;
  EValue* values;
  size_t n_values;
};

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
