/*
 * Program: a loaded .pte file. Holds the verified flatbuffer, the constant
 * data and the DataLoader that later segment loads go through; hands out
 * method metadata and loads Methods.
 *
 * The DataLoader passed to load() must outlive the Program, and the Program
 * must outlive every Method and MethodMeta it produced.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/pte_data_map.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch_flatbuffer {
struct Program;
}  // namespace executorch_flatbuffer

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace internal {
struct ProgramAccess;
}  // namespace internal

class ET_API Program final {
 public:
  /// How much of the file is checked at load.
  ///
  /// Both levels check the extended header against the file size, the
  /// alignment of the program data, the identifier, run the flatbuffers
  /// Verifier over the whole flatbuffer, and check the program-level tables
  /// (segments inside the file, constant and mutable segment indices and
  /// offsets, named data). So no level ever reads outside the loaded buffer.
  /// - Minimal: each method's values and instructions are checked when that
  ///   method is loaded (load_method), not at Program::load.
  /// - InternalConsistency: every method is checked up front as well
  ///   (tensor shapes, dtypes, dim orders, indices, instructions, unique
  ///   method names), so a bad file fails here.
  enum class Verification : uint8_t {
    Minimal,
    InternalConsistency,
  };

  /**
   * Loads a program through `loader`, which must outlive the Program.
   *
   * @retval Error::InvalidProgram malformed data (the log names the field).
   * @retval Error::InvalidArgument program data not 16-byte aligned.
   * Errors of the loader (AccessFailed, ...) are returned as they are.
   */
  ET_NODISCARD static Result<Program> load(
      DataLoader* loader, Verification verification = Verification::Minimal);

  ET_DEPRECATED ET_NODISCARD static Result<Program> Load(
      DataLoader* loader, Verification verification = Verification::Minimal) {
    return load(loader, verification);
  }

  Program(Program&&) noexcept = default;
  ~Program() = default;

  /**
   * The bytes of constant `buffer_idx` (constant segment, or the legacy
   * inline constant_buffer table), at least `nbytes` long.
   *
   * @retval Error::InvalidArgument index or size out of range.
   */
  Result<const void*> get_constant_buffer_data(
      size_t buffer_idx, size_t nbytes) const;

  /// The program's own named data (key -> segment); NotFound if it has none.
  Result<const NamedDataMap*> get_named_data_map() const;

  size_t num_methods() const;

  /// Name of method `method_index`; InvalidArgument when out of range.
  Result<const char*> get_method_name(size_t method_index) const;

  /**
   * Loads the named method (first match). InvalidArgument for an unknown
   * name; under Verification::Minimal the method's plan is validated first.
   */
  Result<Method> load_method(
      const char* method_name,
      MemoryManager* memory_manager,
      EventTracer* event_tracer = nullptr,
      const NamedDataMap* named_data_map = nullptr,
      const LoadBackendOptionsMap* backend_options = nullptr,
      Span<const Kernel> kernel_registry = {}) const;

  /// EXPERIMENTAL: load_method with load options (MethodLoadConfig), e.g.
  /// prepare_constants = false to keep every instruction for execute().
  Result<Method> load_method(
      const char* method_name,
      MemoryManager* memory_manager,
      const MethodLoadConfig& config,
      EventTracer* event_tracer = nullptr,
      const NamedDataMap* named_data_map = nullptr,
      const LoadBackendOptionsMap* backend_options = nullptr,
      Span<const Kernel> kernel_registry = {}) const;

  /// Metadata of the named method; InvalidArgument for an unknown name.
  Result<MethodMeta> method_meta(const char* method_name) const;

  /// The pytree encoding of the method's outputs (opaque string).
  ET_DEPRECATED Result<const char*> get_output_flattening_encoding(
      const char* method_name = "forward") const;

  /// What the first bytes of a file say about it.
  enum HeaderStatus {
    /// An ExecuTorch program this runtime can load.
    CompatibleVersion,
    /// An ExecuTorch program of another format version.
    IncompatibleVersion,
    /// Not an ExecuTorch program.
    NotPresent,
    /// Fewer than kMinHeadBytes bytes were given.
    ShortData,
  };

  /// Bytes check_header() needs.
  static constexpr size_t kMinHeadBytes = 64;

  /// Classifies the first `size` bytes of a file.
  static HeaderStatus check_header(const void* data, size_t size);

 private:
  // Executor internals (and tests) reach the private state only through
  // internal::ProgramAccess (runtime/executor/detail/program_access.h).
  friend struct internal::ProgramAccess;

  /**
   * The payload of Program.backend_delegate_data[index] (inside the program
   * buffer; never freed). NotFound when out of range.
   */
  Error get_backend_delegate_data(
      size_t index, const void** out_data, size_t* out_size) const;

  /**
   * Loads Program.segments[segment_info.segment_index] through the loader.
   * NotFound when the file has no segment area or the index is out of range.
   */
  ET_NODISCARD Result<FreeableBuffer> LoadSegment(
      const DataLoader::SegmentInfo& segment_info) const;

  /**
   * Copies `size` bytes of sub-blob `offset_index` of
   * mutable_data_segments[mutable_data_segments_index] into `buffer`.
   * NotFound when there is no such segment/offset; InvalidArgument when the
   * range leaves the segment.
   */
  ET_NODISCARD Error load_mutable_subsegment_into(
      size_t mutable_data_segments_index,
      size_t offset_index,
      size_t size,
      void* buffer) const;

  Program(
      DataLoader* loader,
      size_t segment_base_offset,
      FreeableBuffer&& program_data,
      const executorch_flatbuffer::Program* internal_program,
      FreeableBuffer&& constant_segment_data,
      std::optional<internal::PteDataMap>&& pte_data_map,
      Verification verification)
      : program_data_(std::move(program_data)),
        loader_(segment_base_offset > 0 ? loader : nullptr),
        internal_program_(internal_program),
        segment_base_offset_(segment_base_offset),
        constant_segment_data_(std::move(constant_segment_data)),
        pte_data_map_(std::move(pte_data_map)),
        verification_(verification) {}

  Program(const Program&) = delete;
  Program& operator=(Program&&) noexcept = delete;
  Program& operator=(const Program&) = delete;

  /// [0, program_size) of the file: the flatbuffer (and the header in it).
  FreeableBuffer program_data_;
  /// Source of segments; null when the file has no segment area.
  DataLoader* loader_;
  /// Root table inside program_data_.
  const executorch_flatbuffer::Program* internal_program_;
  size_t segment_base_offset_;
  /// The constant segment, loaded once (empty on the legacy path).
  FreeableBuffer constant_segment_data_;
  /// Present iff the program lists named data.
  std::optional<internal::PteDataMap> pte_data_map_;
  Verification verification_;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::Program;
}  // namespace executor
}  // namespace torch
