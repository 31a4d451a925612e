/*
 * The process-wide backend registry.
 *
 * Storage is a fixed table with constant initialization only (a plain array,
 * an atomic count and a std::mutex, whose default constructor is constexpr),
 * so register_backend() works from any static initializer, in any library,
 * before or after main(), with no init-order dependency. None of these
 * objects has a non-trivial destructor either, so registration or lookup
 * from a static destructor is safe too.
 *
 * Concurrency: writers serialize on a mutex; readers take no lock. An entry
 * is filled in completely before the count that makes it visible is
 * published with a release store, and readers load the count with acquire,
 * so a reader sees only complete entries. Entries never move or change once
 * published (there is no unregistration), which is also what makes the
 * `const char*` returned by get_backend_name() stable.
 */

#include <executorch/runtime/backend/interface.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

BackendInterface::~BackendInterface() {}

namespace {

// Capacity of the table (upstream stops at 16).
constexpr size_t kMaxRegisteredBackends = 64;

std::mutex backend_write_lock;
std::atomic<size_t> num_backends{0};
Backend backends[kMaxRegisteredBackends];

}  // namespace

Error register_backend(const Backend& backend) {
  if (backend.name == nullptr || backend.backend == nullptr) {
    ET_LOG(Error, "register_backend: null name or backend object");
    return Error::InvalidArgument;
  }
  std::lock_guard<std::mutex> guard(backend_write_lock);
  const size_t n = num_backends.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) {
    if (std::strcmp(backends[i].name, backend.name) == 0) {
      ET_LOG(
          Error, "register_backend: '%s' is already registered", backend.name);
      return Error::InvalidArgument;
    }
  }
  if (n >= kMaxRegisteredBackends) {
    ET_LOG(
        Error,
        "register_backend: cannot register '%s', the registry is full "
        "(%zu backends)",
        backend.name,
        kMaxRegisteredBackends);
    return Error::Internal;
  }
  backends[n] = backend;
  num_backends.store(n + 1, std::memory_order_release);
  return Error::Ok;
}

BackendInterface* get_backend_class(const char* name) {
  if (name == nullptr) {
    return nullptr;
  }
  const size_t n = num_backends.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    if (std::strcmp(backends[i].name, name) == 0) {
      return backends[i].backend;
    }
  }
  return nullptr;
}

size_t get_num_registered_backends() {
  return num_backends.load(std::memory_order_acquire);
}

Result<const char*> get_backend_name(size_t index) {
  if (index >= num_backends.load(std::memory_order_acquire)) {
    return Error::InvalidArgument;
  }
  return backends[index].name;
}

Error set_option(
    const char* backend_name, const Span<BackendOption> backend_options) {
  BackendInterface* backend = get_backend_class(backend_name);
  if (backend == nullptr) {
    return Error::NotFound;
  }
  BackendOptionContext context;
  return backend->set_option(context, backend_options);
}

Error get_option(
    const char* backend_name, Span<BackendOption> backend_options) {
  BackendInterface* backend = get_backend_class(backend_name);
  if (backend == nullptr) {
    return Error::NotFound;
  }
  BackendOptionContext context;
  return backend->get_option(context, backend_options);
}

}  // namespace runtime
}  // namespace executorch
