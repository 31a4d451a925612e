/*
 * BufferDataLoader: a DataLoader over memory the caller owns. load() returns
 * views into that memory (nothing is copied or freed); the memory must
 * outlive every buffer handed out. For Program::load the memory must be
 * aligned to alignof(std::max_align_t).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {

class BufferDataLoader final : public executorch::runtime::DataLoader {
 public:
  BufferDataLoader(const void* data, size_t size)
      : data_(static_cast<const uint8_t*>(data)), size_(size) {}

  ET_NODISCARD
  executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset,
      size_t size,
      ET_UNUSED const DataLoader::SegmentInfo& segment_info) const override {
    ET_CHECK_OR_RETURN_ERROR(
        offset <= size_ && size <= size_ - offset,
        InvalidArgument,
        "range [%zu, +%zu) outside the %zu-byte buffer",
        offset,
        size,
        size_);
    return executorch::runtime::FreeableBuffer(
        data_ == nullptr ? nullptr : data_ + offset, size, /*free_fn=*/nullptr);
  }

  ET_NODISCARD executorch::runtime::Result<size_t> size() const override {
    return size_;
  }

  ET_NODISCARD executorch::runtime::Error load_into(
      size_t offset,
      size_t size,
      ET_UNUSED const SegmentInfo& segment_info,
      void* buffer) const override {
    ET_CHECK_OR_RETURN_ERROR(
        buffer != nullptr || size == 0,
        InvalidArgument,
        "load_into: destination is null");
    ET_CHECK_OR_RETURN_ERROR(
        offset <= size_ && size <= size_ - offset,
        InvalidArgument,
        "range [%zu, +%zu) outside the %zu-byte buffer",
        offset,
        size,
        size_);
    if (size > 0) {
      std::memcpy(buffer, data_ + offset, size);
    }
    return executorch::runtime::Error::Ok;
  }

 private:
  const uint8_t* const data_;
  const size_t size_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::BufferDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
