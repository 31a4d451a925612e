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

#include <executorch/extension/data_loader/buffer_data_loader.h>
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
      : data_(std::move(data)), view_(data_.get(), size) {}

  // Owning the bytes is all this adds: every read is the buffer loader's.
  ET_NODISCARD
  executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset,
      size_t size,
      const DataLoader::SegmentInfo& segment_info) const override {
    return view_.load(offset, size, segment_info);
  }

  ET_NODISCARD executorch::runtime::Result<size_t> size() const override {
    return view_.size();
  }

  ET_NODISCARD executorch::runtime::Error load_into(
      size_t offset,
      size_t size,
      const SegmentInfo& segment_info,
      void* buffer) const override {
    return view_.load_into(offset, size, segment_info, buffer);
  }

 private:
  const std::shared_ptr<void> data_;  // declared first: view_ points into it
  BufferDataLoader view_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::SharedPtrDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
