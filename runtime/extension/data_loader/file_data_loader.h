/*
 * FileDataLoader: reads ranges of a file into freshly allocated, aligned heap
 * buffers (freed when the FreeableBuffer is released). Ranges outside the
 * file are refused before anything is allocated, so a file that declares
 * absurd offsets or sizes cannot make the loader allocate more than the file
 * holds.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {

class ET_API FileDataLoader final : public executorch::runtime::DataLoader {
 public:
  /**
   * Opens `file_name` read-only.
   *
   * @param alignment alignment of every buffer load() returns; a power of 2.
   * @retval Error::InvalidArgument alignment is not a power of 2.
   * @retval Error::AccessFailed the file cannot be opened or is not a
   *     regular file.
   */
  static executorch::runtime::Result<FileDataLoader> from(
      const char* file_name, size_t alignment = alignof(std::max_align_t));

  ET_DEPRECATED static executorch::runtime::Result<FileDataLoader> From(
      const char* file_name, size_t alignment = alignof(std::max_align_t)) {
    return from(file_name, alignment);
  }

  FileDataLoader(FileDataLoader&& rhs) noexcept
      : file_name_(rhs.file_name_),
        file_size_(rhs.file_size_),
        alignment_(rhs.alignment_),
        fd_(rhs.fd_) {
    rhs.file_name_ = nullptr;
    rhs.file_size_ = 0;
    rhs.fd_ = -1;
  }

  ~FileDataLoader() override;

  ET_NODISCARD
  executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset,
      size_t size,
      const DataLoader::SegmentInfo& segment_info) const override;

  ET_NODISCARD executorch::runtime::Result<size_t> size() const override;

  ET_NODISCARD executorch::runtime::Error load_into(
      size_t offset,
      size_t size,
      const SegmentInfo& segment_info,
      void* buffer) const override;

 private:
  FileDataLoader(
      int fd, size_t file_size, size_t alignment, const char* file_name)
      : file_name_(file_name),
        file_size_(file_size),
        alignment_(alignment),
        fd_(fd) {}

  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  FileDataLoader& operator=(FileDataLoader&&) = delete;

  const char* file_name_;  // owned (strdup)
  size_t file_size_;
  size_t alignment_;
  int fd_;  // owned
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::FileDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
