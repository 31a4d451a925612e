/*
 * DataLoader: how the runtime reads bytes of a program (or of external
 * data): from a file, an mmap, a memory buffer, or anything a client writes.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {

class ET_API DataLoader {
 public:
  /* What a load is for, so a loader may treat kinds of data differently. */
  struct SegmentInfo {
    enum class Type {
      Program,   // The program flatbuffer itself.
      Constant,  // Constant tensor data.
      Backend,   // A delegate's payload; descriptor is the backend id.
      Mutable,   // Initial values of mutable state.
      External,  // Data named from outside the program; descriptor is the key.
    };

    Type segment_type;
    size_t segment_index{0};
    const char* descriptor{nullptr};

    SegmentInfo() = default;

    explicit SegmentInfo(
        Type segment_type_,
        size_t segment_index_ = 0,
        const char* descriptor_ = nullptr)
        : segment_type(segment_type_),
          segment_index(segment_index_),
          descriptor(descriptor_) {}
  };

  virtual ~DataLoader() = default;

  /*
   * `size` bytes starting at `offset`. The returned buffer may point into the
   * loader's own memory or be a fresh allocation; either way its Free()
   * releases it.
   */
  ET_NODISCARD virtual Result<FreeableBuffer> load(
      size_t offset, size_t size, const SegmentInfo& segment_info) const = 0;

  /*
   * Copies `size` bytes starting at `offset` into `buffer`. Loaders that
   * cannot do this efficiently keep the default, which returns
   * NotImplemented.
   */
  ET_NODISCARD virtual Error load_into(
      size_t offset,
      size_t size,
      const SegmentInfo& segment_info,
      void* buffer) const {
    (void)offset;
    (void)size;
    (void)segment_info;
    (void)buffer;
    return Error::NotImplemented;
  }

  /* Total number of bytes available. */
  ET_NODISCARD virtual Result<size_t> size() const = 0;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::DataLoader;
}  // namespace executor
}  // namespace torch
