/*
 * KernelRuntimeContext: the first argument of every kernel (OpFunction).
 * It lets a kernel report failure without aborting, allocate scratch memory
 * that lives until the kernel returns, and reach the event tracer.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/kernel/prepared_constants.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {

class KernelRuntimeContext {
 public:
  /**
   * Neither pointer is owned; both must outlive the context.
   * @param event_tracer Optional tracer for profiling and debugging.
   * @param temp_allocator Optional allocator behind allocate_temp().
   */
  KernelRuntimeContext(
      EventTracer* event_tracer = nullptr,
      MemoryAllocator* temp_allocator = nullptr)
      : event_tracer_(event_tracer), temp_allocator_(temp_allocator) {}

  /**
   * Records that the kernel call failed. The executor checks the state after
   * the call and stops with this error. Kernels should use this rather than
   * aborting the process.
   */
  void fail(Error error) {
    failure_state_ = error;
  }

  /// Error::Ok unless fail() was called.
  ET_NODISCARD Error failure_state() const {
    return failure_state_;
  }

  /// For generated code: the event tracer, or null.
  EventTracer* internal_event_tracer() {
    return event_tracer_;
  }

  /**
   * Which arguments of the current call hold read-only tensors (a program's
   * constants): bit i for argument i, bit 63 for every argument from 63 on.
   * The executor sets it before each kernel call; a boxed kernel refuses to
   * bind one of them to a parameter it may write (a non-const Tensor&).
   */
  void internal_set_read_only_args(uint64_t mask) {
    read_only_args_ = mask;
  }
  uint64_t internal_read_only_args() const {
    return read_only_args_;
  }

  /**
   * The tensor object (TensorImpl) that this call writes and also reads
   * through another argument, or null. Set by the boxed kernel wrapper; a
   * kernel may then write it in place but not resize it to another shape,
   * which would change the input under the kernel.
   */
  void internal_set_aliased_output(const void* tensor_impl) {
    aliased_output_ = tensor_impl;
  }
  const void* internal_aliased_output() const {
    return aliased_output_;
  }

  /**
   * The blobs the Method prepared at load for its constants
   * (prepared_constants.h), or null (preparation off, or a caller outside a
   * Method). Set by the executor before each kernel call.
   */
  const PreparedConstants* prepared_constants() const {
    return prepared_constants_;
  }
  void internal_set_prepared_constants(const PreparedConstants* p) {
    prepared_constants_ = p;
  }

  /**
   * Scratch memory that stays valid until the kernel returns.
   * @param size Number of bytes.
   * @param alignment A power of two.
   * @retval Error::NotFound no temp allocator was provided.
   * @retval Error::MemoryAllocationFailed the allocator could not serve it.
   */
  Result<void*> allocate_temp(
      size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    if (temp_allocator_ == nullptr) {
      return Error::NotFound;
    }
    void* memory = temp_allocator_->allocate(size, alignment);
    if (memory == nullptr) {
      return Error::MemoryAllocationFailed;
    }
    return memory;
  }

 private:
  EventTracer* event_tracer_ = nullptr;
  MemoryAllocator* temp_allocator_ = nullptr;
  Error failure_state_ = Error::Ok;
  uint64_t read_only_args_ = 0;
  const void* aliased_output_ = nullptr;
  const PreparedConstants* prepared_constants_ = nullptr;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::KernelRuntimeContext;
using RuntimeContext = ::executorch::runtime::KernelRuntimeContext;
}  // namespace executor
}  // namespace torch

namespace executorch {
namespace aten {
using RuntimeContext = ::executorch::runtime::KernelRuntimeContext;
}  // namespace aten
}  // namespace executorch
