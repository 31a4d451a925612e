/*
 * The backend (delegate) interface and the process-wide backend registry.
 *
 * A backend implements BackendInterface and registers one instance under a
 * name, usually from a static initializer of the library that contains it:
 *
 *   namespace {
 *   MyBackend backend_impl;
 *   Backend backend{"MyBackend", &backend_impl};
 *   const auto registered = register_backend(backend);
 *   }
 *
 * When a Method is loaded, each delegate names its backend by id; the
 * runtime looks the id up with get_backend_class() and drives the backend
 * through init()/execute()/destroy().
 *
 * The registry is owned by libexecutorch.so.1, so every library in the
 * process sees the same table. It may be used before main() and from any
 * number of threads at once. See interface.cpp for the details.
 */
#pragma once

#include <cstddef>
#include <cstring>

#include <executorch/runtime/backend/backend_execution_context.h>
#include <executorch/runtime/backend/backend_init_context.h>
#include <executorch/runtime/backend/backend_option_context.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {

/// A (pointer, length) pair that does not own its bytes.
struct SizedBuffer {
  void* buffer;
  size_t nbytes;
};

/**
 * One ahead-of-time compile spec of a delegate: a key and an opaque value,
 * both pointing into the program data.
 */
struct CompileSpec {
  const char* key;
  SizedBuffer value;
};

/// Opaque per-delegate state created by init() and owned by the backend.
using DelegateHandle = void;

class ET_API BackendInterface {
 public:
  virtual ~BackendInterface() = 0;

  /// Whether the backend can run on this machine right now.
  ET_NODISCARD virtual bool is_available() const = 0;

  /**
   * Prepares one delegate for execution.
   *
   * @param context Load-time services (method allocator, named data, ...).
   * @param processed The delegate's ahead-of-time payload. It stays valid
   *     until destroy(), unless the backend releases it early with
   *     processed->Free().
   * @param compile_specs The compile specs recorded in the program.
   * @returns The handle later passed to execute() and destroy(), or an
   *     error (e.g. Error::DelegateInvalidCompatibility), which fails the
   *     load as is.
   */
  ET_NODISCARD virtual Result<DelegateHandle*> init(
      BackendInitContext& context,
      FreeableBuffer* processed,
      ArrayRef<CompileSpec> compile_specs) const = 0;

  /// Runs one delegate call; args are the delegate's inputs and outputs.
  ET_NODISCARD virtual Error execute(
      BackendExecutionContext& context,
      DelegateHandle* handle,
      Span<EValue*> args) const = 0;

  /// Applies runtime options; the default accepts and ignores them.
  ET_NODISCARD virtual Error set_option(
      ET_UNUSED BackendOptionContext& context,
      ET_UNUSED const Span<BackendOption>& backend_options) {
    return Error::Ok;
  }

  /// Fills in the requested options; the default leaves them unchanged.
  ET_NODISCARD virtual Error get_option(
      ET_UNUSED BackendOptionContext& context,
      ET_UNUSED Span<BackendOption>& backend_options) {
    return Error::Ok;
  }

  /// Releases a handle returned by init(); called once per handle.
  virtual void destroy(ET_UNUSED DelegateHandle* handle) const {}
};

/**
 * A registry entry. Neither the name nor the backend object is copied: both
 * must stay valid for as long as the process may use the backend.
 */
struct Backend {
  /// Exact, case-sensitive id used by delegates in programs.
  const char* name;
  BackendInterface* backend;
};

/**
 * Adds a backend to the process-wide registry. Safe before main() and from
 * several threads at once.
 *
 * @retval Error::Ok registered.
 * @retval Error::InvalidArgument name or backend is null, or a backend with
 *     this name is already registered (the registry is left unchanged).
 * @retval Error::Internal the registry is full (at least 64 backends).
 */
ET_NODISCARD ET_API Error register_backend(const Backend& backend);

/// The backend registered under `name`, or nullptr.
ET_API BackendInterface* get_backend_class(const char* name);

/// Number of registered backends.
ET_API size_t get_num_registered_backends();

/**
 * Name of the backend at `index` (registration order).
 * @retval Error::InvalidArgument index >= get_num_registered_backends().
 */
ET_API Result<const char*> get_backend_name(size_t index);

/**
 * Passes options to a registered backend's set_option().
 * @retval Error::NotFound no backend has this name.
 * @returns otherwise whatever the backend returns.
 */
ET_API Error
set_option(const char* backend_name, const Span<BackendOption> backend_options);

/**
 * Lets a registered backend fill in options through its get_option().
 * @retval Error::NotFound no backend has this name.
 * @returns otherwise whatever the backend returns.
 */
ET_API Error
get_option(const char* backend_name, Span<BackendOption> backend_options);

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Backend;
using ::executorch::runtime::CompileSpec;
using ::executorch::runtime::DelegateHandle;
using ::executorch::runtime::get_backend_class;
using ::executorch::runtime::register_backend;
using ::executorch::runtime::SizedBuffer;
using PyTorchBackendInterface = ::executorch::runtime::BackendInterface;
}  // namespace executor
}  // namespace torch
