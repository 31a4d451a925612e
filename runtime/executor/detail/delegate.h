/*
 * One initialized backend delegate of a Method (private header).
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/executor/detail/method_internal.h>

#include <executorch_schema/program_generated.h>

namespace executorch {
namespace runtime {
namespace internal {

class BackendDelegate final {
 public:
  /**
   * Initializes `*out` (raw memory) from the serialized delegate: looks the
   * backend up by id, gets the processed payload (inline or segment), builds
   * the compile specs in method memory and calls the backend's init(). On
   * failure `*out` is left unconstructed and nothing is leaked.
   *
   * @retval Error::InvalidProgram no id, no processed reference, bad spec.
   * @retval Error::NotFound backend not registered or not available, or the
   *     payload index is out of range.
   * @returns The backend's own init() error, as is.
   */
  ET_NODISCARD static Error Init(
      const executorch_flatbuffer::BackendDelegate& delegate,
      size_t delegate_index,
      const Program* program,
      BackendInitContext& context,
      BackendDelegate* out);

  ~BackendDelegate();

  ET_NODISCARD Error
  Execute(BackendExecutionContext& context, Span<EValue*> args) const {
    return backend_->execute(context, handle_, args);
  }

  const char* id() const {
    return id_;
  }

  /// Whether the backend reported which call arguments it writes
  /// (BackendInitContext::internal_report_written_arg).
  bool reported_written_args() const {
    return n_written_args_ > 0;
  }

  /// The argument positions the backend reported, in report order.
  Span<const size_t> written_args() const {
    return Span<const size_t>(written_args_, n_written_args_);
  }

 private:
  BackendDelegate(
      const char* id,
      const BackendInterface* backend,
      FreeableBuffer&& processed)
      : id_(id),
        backend_(backend),
        handle_(nullptr),
        processed_(std::move(processed)) {}

  BackendDelegate(const BackendDelegate&) = delete;
  BackendDelegate& operator=(const BackendDelegate&) = delete;

  const char* id_;
  const BackendInterface* backend_;
  DelegateHandle* handle_;
  FreeableBuffer processed_;
  const size_t* written_args_ = nullptr;  // in method memory
  size_t n_written_args_ = 0;
};

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
