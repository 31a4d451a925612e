/*
 * FreeableBuffer: a read-only buffer plus the callback that releases it.
 * Data loaders hand these out; whoever holds one calls Free() (or lets the
 * destructor do it) exactly once.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>

namespace executorch {
namespace runtime {

class FreeableBuffer final {
 public:
  /* Releases `data` (of `size` bytes); `context` is the creator's cookie. */
  using FreeFn = void (*)(void* context, void* data, size_t size);
  /* Same for buffers identified by a 64-bit handle (e.g. a device address). */
  using FreeUInt64Fn = void (*)(void* context, uint64_t data, size_t size);

  /* An empty buffer; Free() does nothing. */
  FreeableBuffer() noexcept
      : free_fn_(nullptr),
        free_uint64_fn_(nullptr),
        kind_(Kind::Pointer),
        free_fn_context_(nullptr),
        size_(0) {
    data_.ptr = nullptr;
  }

  /* `free_fn` may be null for memory that needs no release. */
  FreeableBuffer(
      const void* data,
      size_t size,
      FreeFn free_fn,
      void* free_fn_context = nullptr) noexcept
      : free_fn_(free_fn),
        free_uint64_fn_(nullptr),
        kind_(Kind::Pointer),
        free_fn_context_(free_fn_context),
        size_(size) {
    data_.ptr = data;
  }

  explicit FreeableBuffer(
      const uint64_t data_uint64,
      size_t size,
      FreeUInt64Fn free_fn,
      void* free_fn_context = nullptr) noexcept
      : free_fn_(nullptr),
        free_uint64_fn_(free_fn),
        kind_(Kind::UInt64),
        free_fn_context_(free_fn_context),
        size_(size) {
    data_.u64 = data_uint64;
  }

  /* Takes over rhs's buffer; rhs becomes empty. */
  FreeableBuffer(FreeableBuffer&& rhs) noexcept
      : free_fn_(rhs.free_fn_),
        free_uint64_fn_(rhs.free_uint64_fn_),
        kind_(rhs.kind_),
        free_fn_context_(rhs.free_fn_context_),
        size_(rhs.size_),
        data_(rhs.data_) {
    rhs.clear();
  }

  FreeableBuffer& operator=(FreeableBuffer&& rhs) noexcept {
    if (this != &rhs) {
      Free();
      free_fn_ = rhs.free_fn_;
      free_uint64_fn_ = rhs.free_uint64_fn_;
      kind_ = rhs.kind_;
      free_fn_context_ = rhs.free_fn_context_;
      size_ = rhs.size_;
      data_ = rhs.data_;
      rhs.clear();
    }
    return *this;
  }

  FreeableBuffer(const FreeableBuffer&) = delete;
  FreeableBuffer& operator=(const FreeableBuffer&) = delete;

  ~FreeableBuffer() {
    Free();
  }

  /*
   * Releases the buffer now (calling the free function if there is one) and
   * leaves this object empty. Calling it again does nothing.
   */
  void Free() noexcept {
    if (kind_ == Kind::Pointer) {
      if (data_.ptr != nullptr && free_fn_ != nullptr) {
        free_fn_(free_fn_context_, const_cast<void*>(data_.ptr), size_);
      }
    } else if (free_uint64_fn_ != nullptr) {
      free_uint64_fn_(free_fn_context_, data_.u64, size_);
    }
    clear();
  }

  size_t size() const {
    return size_;
  }

  /* The data; nullptr for an empty or a 64-bit-handle buffer. */
  const void* data() const {
    return kind_ == Kind::Pointer ? data_.ptr : nullptr;
  }

  /* The data, or InvalidType if this buffer holds a 64-bit handle. */
  Result<const void*> data_safe() const {
    if (kind_ != Kind::Pointer) {
      return Error::InvalidType;
    }
    return data_.ptr;
  }

  /* The 64-bit handle, or InvalidType if this buffer holds a pointer. */
  Result<uint64_t> data_uint64_type() const {
    if (kind_ != Kind::UInt64) {
      return Error::InvalidType;
    }
    return data_.u64;
  }

 private:
  enum class Kind : uint8_t { Pointer, UInt64 };

  void clear() noexcept {
    free_fn_ = nullptr;
    free_uint64_fn_ = nullptr;
    kind_ = Kind::Pointer;
    free_fn_context_ = nullptr;
    size_ = 0;
    data_.ptr = nullptr;
  }

  FreeFn free_fn_;
  FreeUInt64Fn free_uint64_fn_;
  Kind kind_;
  void* free_fn_context_;
  size_t size_;
  union {
    const void* ptr;
    uint64_t u64;
  } data_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::FreeableBuffer;
}  // namespace executor
}  // namespace torch
