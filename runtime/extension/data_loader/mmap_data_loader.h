/*
 * MmapDataLoader: maps ranges of a file privately (copy-on-write: the file is
 * never written, see load()). load() returns a pointer
 * into the mapping at the exact requested offset (so alignment follows the
 * file offset; offset 0 is page-aligned) and unmaps on release. Nothing is
 * copied. Ranges outside the file are refused with an error.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {

class ET_API MmapDataLoader final : public executorch::runtime::DataLoader {
 public:
  /// What to do about paging the mapped data in.
  enum class MlockConfig {
    /// Leave it to the kernel.
    NoMlock,
    /// mlock() every mapping; a failure fails the load (NotSupported).
    UseMlock,
    /// mlock() every mapping; failures are logged and ignored.
    UseMlockIgnoreErrors,
    /// madvise(MADV_WILLNEED) instead of locking.
    UseMadvise,
  };

  /**
   * Opens `file_name` read-only.
   *
   * @retval Error::AccessFailed the file cannot be opened or is not a
   *     regular file.
   */
  static executorch::runtime::Result<MmapDataLoader> from(
      const char* file_name, MlockConfig mlock_config = MlockConfig::UseMlock);

  ET_DEPRECATED static executorch::runtime::Result<MmapDataLoader> From(
      const char* file_name, MlockConfig mlock_config = MlockConfig::UseMlock) {
    return from(file_name, mlock_config);
  }

  ET_DEPRECATED static executorch::runtime::Result<MmapDataLoader> From(
      const char* file_name, bool use_mlock) {
    return from(
        file_name, use_mlock ? MlockConfig::UseMlock : MlockConfig::NoMlock);
  }

  MmapDataLoader(MmapDataLoader&& rhs) noexcept
      : file_name_(rhs.file_name_),
        file_size_(rhs.file_size_),
        page_size_(rhs.page_size_),
        fd_(rhs.fd_),
        mlock_config_(rhs.mlock_config_) {
    rhs.file_name_ = nullptr;
    rhs.file_size_ = 0;
    rhs.page_size_ = 0;
    rhs.fd_ = -1;
    rhs.mlock_config_ = MlockConfig::NoMlock;
  }

  ~MmapDataLoader() override;

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
  MmapDataLoader(
      int fd,
      size_t file_size,
      const char* file_name,
      size_t page_size,
      MlockConfig mlock_config)
      : file_name_(file_name),
        file_size_(file_size),
        page_size_(page_size),
        fd_(fd),
        mlock_config_(mlock_config) {}

  MmapDataLoader(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(MmapDataLoader&&) = delete;

  const char* file_name_;  // owned (strdup)
  size_t file_size_;
  size_t page_size_;
  int fd_;  // owned
  MlockConfig mlock_config_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::MmapDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
