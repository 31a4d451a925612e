/*
 * LoadBackendOptionsMap: per-backend load-time options, keyed by the backend
 * id a delegate names in the program (e.g. "XnnpackBackend"). Method load
 * hands the options of a delegate's backend to BackendInterface::init()
 * through BackendInitContext::runtime_specs().
 *
 * The map copies the backend ids but NOT the options: the spans must stay
 * valid for as long as the map and every Method loaded with it.
 */
#pragma once

#include <cstddef>
#include <cstring>

#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/span.h>

namespace executorch {
namespace runtime {

class LoadBackendOptionsMap final {
 public:
  /// A read-only view of one entry, valid until the map is changed.
  struct EntryView {
    const char* backend_id = nullptr;
    Span<const BackendOption> options;
  };

  LoadBackendOptionsMap() = default;

  /**
   * Sets (or replaces) the options of one backend.
   * @retval Error::InvalidArgument backend_id is null, empty or at least
   *     kMaxBackendIdLength characters long, or the map already holds
   *     kMaxBackends other backends.
   */
  Error set_options(const char* backend_id, Span<BackendOption> options) {
    if (backend_id == nullptr || backend_id[0] == '\0') {
      return Error::InvalidArgument;
    }
    for (size_t i = 0; i < size_; ++i) {
      if (id_equals(entries_[i].backend_id, backend_id)) {
        entries_[i].options = options;
        return Error::Ok;
      }
    }
    const size_t len = std::strlen(backend_id);
    if (len >= kMaxBackendIdLength || size_ >= kMaxBackends) {
      return Error::InvalidArgument;
    }
    std::memcpy(entries_[size_].backend_id, backend_id, len + 1);
    entries_[size_].options = options;
    ++size_;
    return Error::Ok;
  }

  /**
   * Sets the options of a builder object that knows its own backend:
   * anything with `const char* backend_id()` and `Span<BackendOption> view()`.
   */
  template <typename Builder>
  Error set_options(Builder& builder) {
    return set_options(builder.backend_id(), builder.view());
  }

  /// The options of a backend, or an empty span when it has none.
  Span<const BackendOption> get_options(const char* backend_id) const {
    const Entry* e = find(backend_id);
    if (e == nullptr) {
      return Span<const BackendOption>();
    }
    return Span<const BackendOption>(e->options.data(), e->options.size());
  }

  bool has_options(const char* backend_id) const {
    return find(backend_id) != nullptr;
  }

  /// Number of backends that have options.
  size_t size() const {
    return size_;
  }

  /// Entry `index` (< size()); an out-of-range index gives an empty view.
  EntryView entry_at(size_t index) const {
    if (index >= size_) {
      return EntryView{};
    }
    return EntryView{
        entries_[index].backend_id,
        Span<const BackendOption>(
            entries_[index].options.data(), entries_[index].options.size())};
  }

 private:
  static constexpr size_t kMaxBackends = 8;
  static constexpr size_t kMaxBackendIdLength = 64;

  struct Entry {
    char backend_id[kMaxBackendIdLength]{};
    Span<BackendOption> options;
  };

  /*
   * True if `backend_id` equals the stored id. Compares byte by byte and stops
   * at the first difference or at the stored id's NUL (always within
   * kMaxBackendIdLength), so it never reads past the end of either string.
   * (Not strcmp: the ids looked up at load point into a program's
   * flatbuffer, whose string accessors GCC sees as offsets into a 1-byte
   * object, and strcmp on them trips -Wstringop-overread under -fsanitize.)
   */
  static bool id_equals(
      const char (&stored)[kMaxBackendIdLength], const char* backend_id) {
    for (size_t k = 0; k < kMaxBackendIdLength; ++k) {
      if (stored[k] != backend_id[k]) {
        return false;
      }
      if (stored[k] == '\0') {
        return true;
      }
    }
    return false;
  }

  const Entry* find(const char* backend_id) const {
    if (backend_id == nullptr) {
      return nullptr;
    }
    for (size_t i = 0; i < size_; ++i) {
      if (id_equals(entries_[i].backend_id, backend_id)) {
        return &entries_[i];
      }
    }
    return nullptr;
  }

  Entry entries_[kMaxBackends];
  size_t size_ = 0;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::LoadBackendOptionsMap;
}  // namespace executor
}  // namespace torch
