/*
 * ETDumpGen: an EventTracer that records what a Method does into an ETDump, the profiling
 * and debugging format upstream ExecuTorch's devtools read
 * (executorch.devtools.Inspector(etdump_path=...)). Same include path, class name and
 * methods as upstream's devtools/etdump/etdump_flatcc.h, so code written for upstream
 * compiles unchanged:
 *
 *   ETDumpGen etdump;
 *   Result<Method> method = program->load_method("forward", &memory_manager, &etdump);
 *   method->execute();                                 // one RunData per execute()
 *   ETDumpResult dump = etdump.get_etdump_data();
 *   fwrite(dump.buf, 1, dump.size, file);
 *   free(dump.buf);                                    // (not with a caller's buffer)
 *
 * What is recorded, per event block (the Method opens one, "Execute", per execute()):
 * profile events (operators, delegate calls, a delegate's own nodes, "Method::execute")
 * with start and end ticks, allocators and allocations, and, with a debug buffer and a
 * debug level above kNoLogging, logged values (tensor data goes into the debug buffer;
 * the ETDump holds its metadata and offset). A full debug buffer makes log_evalue return
 * Error::OutOfResources; nothing is written past its end. See docs/etdump.md.
 *
 * Unlike upstream (flatcc into a caller-provided arena), events are built on the heap;
 * the constructor's buffer, when given, only receives the finished ETDump.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/compiler.h>

#define ETDUMP_VERSION 0

namespace executorch {
namespace etdump {

using ::executorch::runtime::DelegateDebugIntId;
using ::executorch::runtime::EventTracerFilterBase;
using ::executorch::runtime::Result;

/// A finished ETDump: `size` bytes at `buf`. Without a caller buffer, `buf` is from malloc()
/// and the caller frees it; with one, it points into that buffer. {nullptr, 0} when nothing
/// was recorded (or the caller's buffer is too small, which is logged).
struct ETDumpResult {
  void* buf;
  size_t size;
};

class ET_API ETDumpGen : public ::executorch::runtime::EventTracer {
 public:
  /// `buffer`, when given, receives the finished ETDump (see get_etdump_data()).
  explicit ETDumpGen(
      ::executorch::runtime::Span<uint8_t> buffer = {nullptr, (size_t)0});
  ~ETDumpGen() override;
  ETDumpGen(const ETDumpGen&) = delete;
  ETDumpGen& operator=(const ETDumpGen&) = delete;

  /// Drops everything recorded so far (the debug buffer stays set, its contents are
  /// overwritten from the start).
  void clear_builder();
  /// Same as clear_builder(); also forgets the debug buffer.
  void reset();

  void create_event_block(const char* name) override;
  ::executorch::runtime::EventTracerEntry start_profiling(
      const char* name,
      ::executorch::runtime::ChainID chain_id = -1,
      ::executorch::runtime::DebugHandle debug_handle = 0) override;
  void end_profiling(
      ::executorch::runtime::EventTracerEntry prof_entry) override;
  /// Exactly one of `name` and `delegate_debug_index` identifies the event (the other is
  /// nullptr / -1); otherwise the event is dropped and logged.
  ::executorch::runtime::EventTracerEntry start_profiling_delegate(
      const char* name, DelegateDebugIntId delegate_debug_index) override;
  void end_profiling_delegate(
      ::executorch::runtime::EventTracerEntry prof_entry,
      const void* metadata = nullptr,
      size_t metadata_len = 0) override;
  void log_profiling_delegate(
      const char* name,
      DelegateDebugIntId delegate_debug_index,
      et_timestamp_t start_time,
      et_timestamp_t end_time,
      const void* metadata = nullptr,
      size_t metadata_len = 0) override;
  void track_allocation(
      ::executorch::runtime::AllocatorID id, size_t size) override;
  /// The id is the allocator's index in the current block; track it again in a new block.
  ::executorch::runtime::AllocatorID track_allocator(const char* name) override;

  /// Records Tensor, TensorList, Int, Double and Bool values (true); other kinds are not
  /// recorded (false). Tensor data needs a debug buffer: without one, InvalidArgument;
  /// when it is full, OutOfResources. In both cases nothing is recorded for the value.
  Result<bool> log_evalue(
      const ::executorch::runtime::EValue& evalue,
      ::executorch::runtime::LoggedEValueType evalue_type =
          ::executorch::runtime::LoggedEValueType::kIntermediateOutput)
      override;
  Result<bool> log_intermediate_output_delegate(
      const char* name,
      DelegateDebugIntId delegate_debug_index,
      const executorch::aten::Tensor& output) override;
  Result<bool> log_intermediate_output_delegate(
      const char* name,
      DelegateDebugIntId delegate_debug_index,
      const ::executorch::runtime::ArrayRef<executorch::aten::Tensor> output)
      override;
  Result<bool> log_intermediate_output_delegate(
      const char* name,
      DelegateDebugIntId delegate_debug_index,
      const int& output) override;
  Result<bool> log_intermediate_output_delegate(
      const char* name,
      DelegateDebugIntId delegate_debug_index,
      const bool& output) override;
  Result<bool> log_intermediate_output_delegate(
      const char* name,
      DelegateDebugIntId delegate_debug_index,
      const double& output) override;
  /// Delegate outputs the filter says to skip are not recorded (not owned).
  void set_delegation_intermediate_output_filter(
      EventTracerFilterBase* event_tracer_filter) override;

  /// Where tensor data of logged values goes (not owned; must outlive the recording).
  /// Each tensor starts at a 64-byte aligned offset from the buffer's start.
  Result<bool> set_debug_buffer(::executorch::runtime::Span<uint8_t> buffer);
  /// Bytes of the debug buffer used so far (write out this many).
  size_t get_debug_buffer_used_bytes() const;

  /// Finishes the ETDump (see ETDumpResult). The next create_event_block() starts a new
  /// one; calling this again before that returns the same ETDump again.
  ETDumpResult get_etdump_data();
  size_t get_num_blocks();
  bool is_static_etdump();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace etdump
}  // namespace executorch

namespace torch {
namespace executor {
using etdump_result = ::executorch::etdump::ETDumpResult;
using ::executorch::etdump::ETDumpGen;
}  // namespace executor
}  // namespace torch
