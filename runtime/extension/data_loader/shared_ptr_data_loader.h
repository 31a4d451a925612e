/*
 * SharedPtrDataLoader: like BufferDataLoader, but the loader co-owns the
 * memory through a shared_ptr, so the bytes live at least as long as the
 * loader.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {

class SharedPtrDataLoader final : public executorch::runtime::DataLoader {
 public:
  SharedPtrDataLoader(std::shared_ptr<void> data, size_t size)
      : data_(std::move(data)), size_(size) {}

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
    auto* base = static_cast<uint8_t*>(data_.get());
    return executorch::runtime::FreeableBuffer(
        base == nullptr ? nullptr : base + offset, size, /*free_fn=*/nullptr);
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
      std::memcpy(buffer, static_cast<uint8_t*>(data_.get()) + offset, size);
    }
    return executorch::runtime::Error::Ok;
  }

 private:
  const std::shared_ptr<void> data_;
  const size_t size_;
};

} // namespace extension
} // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::SharedPtrDataLoader;
} // namespace util
} // namespace executor
} // namespace torch
