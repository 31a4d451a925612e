// File, mmap, buffer and shared-pointer loaders; the absurd-size guarantee.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/data_loader/shared_ptr_data_loader.h>
#include <executorch/runtime/executor/program.h>

#include "test_util.h"

using namespace et_test;
using executorch::extension::FileDataLoader;
using executorch::extension::MmapDataLoader;
using executorch::extension::SharedPtrDataLoader;
using executorch::runtime::DataLoader;
using executorch::runtime::FreeableBuffer;

namespace {

const DataLoader::SegmentInfo kInfo(DataLoader::SegmentInfo::Type::Program);

class TempFile {
 public:
  explicit TempFile(const std::vector<uint8_t>& bytes) {
    char tmpl[] = "/tmp/et_prog_test_XXXXXX";
    int fd = mkstemp(tmpl);
    EXPECT_GE(fd, 0);
    if (!bytes.empty()) {
      EXPECT_EQ(write(fd, bytes.data(), bytes.size()), (ssize_t)bytes.size());
    }
    close(fd);
    path_ = tmpl;
  }
  ~TempFile() {
    std::remove(path_.c_str());
  }
  const char* path() const {
    return path_.c_str();
  }

 private:
  std::string path_;
};

std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = uint8_t(i * 7 + 3);
  return v;
}

template <typename L>
void check_loader(const L& loader, const std::vector<uint8_t>& want) {
  ASSERT_EQ(loader.size().get(), want.size());
  for (size_t off : {size_t(0), size_t(1), size_t(4095), size_t(4096), want.size() - 5}) {
    auto b = loader.load(off, 5, kInfo);
    ASSERT_TRUE(b.ok()) << off;
    EXPECT_EQ(std::memcmp(b->data(), want.data() + off, 5), 0) << off;
    uint8_t into[5];
    ASSERT_EQ(loader.load_into(off, 5, kInfo, into), Error::Ok);
    EXPECT_EQ(std::memcmp(into, want.data() + off, 5), 0);
  }
  auto empty = loader.load(want.size(), 0, kInfo);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
  // Out of range, overflowing, absurd: clean InvalidArgument.
  EXPECT_EQ(loader.load(want.size() - 4, 5, kInfo).error(), Error::InvalidArgument);
  EXPECT_EQ(loader.load(want.size() + 1, 0, kInfo).error(), Error::InvalidArgument);
  EXPECT_EQ(loader.load(SIZE_MAX, 2, kInfo).error(), Error::InvalidArgument);
  EXPECT_EQ(loader.load(1, SIZE_MAX, kInfo).error(), Error::InvalidArgument);
  EXPECT_EQ(loader.load(0, size_t(1) << 62, kInfo).error(), Error::InvalidArgument);
  uint8_t into[8];
  EXPECT_EQ(loader.load_into(SIZE_MAX - 2, 8, kInfo, into), Error::InvalidArgument);
  EXPECT_EQ(loader.load_into(0, 8, kInfo, nullptr), Error::InvalidArgument);
}

TEST(FileDataLoader, ReadsRangesAndRefusesBadOnes) {
  auto bytes = pattern(10000);
  TempFile f(bytes);
  auto l = FileDataLoader::from(f.path());
  ASSERT_TRUE(l.ok());
  check_loader(l.get(), bytes);
  auto b = l->load(3, 100, kInfo);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % alignof(std::max_align_t), 0u);
  auto l64 = FileDataLoader::from(f.path(), 64);
  ASSERT_TRUE(l64.ok());
  auto b64 = l64->load(3, 100, kInfo);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b64->data()) % 64, 0u);
  EXPECT_EQ(FileDataLoader::from(f.path(), 3).error(), Error::InvalidArgument);
  EXPECT_EQ(FileDataLoader::from("/nonexistent/x.pte").error(), Error::AccessFailed);
  EXPECT_EQ(FileDataLoader::from("/tmp").error(), Error::AccessFailed);
  // Moved-from loaders fail cleanly.
  FileDataLoader moved(std::move(l.get()));
  EXPECT_EQ(l->size().error(), Error::InvalidState);
  EXPECT_TRUE(moved.size().ok());
}

TEST(MmapDataLoader, MapsRangesAndRefusesBadOnes) {
  auto bytes = pattern(10000);
  TempFile f(bytes);
  for (auto cfg :
       {MmapDataLoader::MlockConfig::NoMlock, MmapDataLoader::MlockConfig::UseMlockIgnoreErrors,
        MmapDataLoader::MlockConfig::UseMadvise}) {
    auto l = MmapDataLoader::from(f.path(), cfg);
    ASSERT_TRUE(l.ok());
    check_loader(l.get(), bytes);
    auto b = l->load(0, 64, kInfo);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % 4096, 0u);
  }
  EXPECT_EQ(MmapDataLoader::from("/nonexistent/x.pte").error(), Error::AccessFailed);
}

// Constants are used in place from the mapping. A write through one (a crafted
// program can make a kernel write a tensor the load-time checks could not tell
// was an output) must neither fault on a read-only page nor reach the file or
// a later mapping of it.
TEST(MmapDataLoader, WritesToAMappingStayPrivate) {
  auto bytes = pattern(10000);
  TempFile f(bytes);
  auto l = MmapDataLoader::from(f.path(), MmapDataLoader::MlockConfig::NoMlock);
  ASSERT_TRUE(l.ok());
  auto b = l->load(4000, 100, kInfo);
  ASSERT_TRUE(b.ok());
  auto* p = static_cast<uint8_t*>(const_cast<void*>(b->data()));
  std::memset(p, 0xAB, 100);
  EXPECT_EQ(p[99], 0xAB);
  auto again = l->load(4000, 100, kInfo);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(std::memcmp(again->data(), bytes.data() + 4000, 100), 0);
  FILE* fp = std::fopen(f.path(), "rb");
  ASSERT_NE(fp, nullptr);
  std::vector<uint8_t> on_disk(bytes.size());
  EXPECT_EQ(std::fread(on_disk.data(), 1, on_disk.size(), fp), on_disk.size());
  std::fclose(fp);
  EXPECT_EQ(on_disk, bytes);
}

TEST(BufferLoaders, ViewsAndBounds) {
  auto bytes = pattern(10000);
  BufferDataLoader bl(bytes.data(), bytes.size());
  check_loader(bl, bytes);
  auto b = bl.load(10, 4, kInfo);
  EXPECT_EQ(b->data(), bytes.data() + 10);  // a view, no copy
  std::shared_ptr<void> owned(new uint8_t[bytes.size()],
                              [](void* p) { delete[] static_cast<uint8_t*>(p); });
  std::memcpy(owned.get(), bytes.data(), bytes.size());
  SharedPtrDataLoader sl(owned, bytes.size());
  check_loader(sl, bytes);
}

TEST(ProgramFromFile, FileAndMmapLoadersLoadTheAddProgram) {
  PteFile pf = add_pte();
  TempFile f(pf.bytes);
  auto fl = FileDataLoader::from(f.path());
  auto p1 = Program::load(&fl.get(), Verification::InternalConsistency);
  ASSERT_TRUE(p1.ok());
  auto ml = MmapDataLoader::from(f.path(), MmapDataLoader::MlockConfig::NoMlock);
  auto p2 = Program::load(&ml.get(), Verification::InternalConsistency);
  ASSERT_TRUE(p2.ok());
  float w[2];
  std::memcpy(w, p2->get_constant_buffer_data(1, 8).get(), 8);
  EXPECT_EQ(w[1], 2.0f);
}

// Wraps a loader and records the largest range anyone asked for.
class CountingLoader final : public DataLoader {
 public:
  explicit CountingLoader(DataLoader* inner) : inner_(inner) {}
  executorch::runtime::Result<FreeableBuffer> load(size_t offset, size_t size,
                                                   const SegmentInfo& info) const override {
    if (size > max_request)
      max_request = size;
    return inner_->load(offset, size, info);
  }
  executorch::runtime::Result<size_t> size() const override {
    return inner_->size();
  }
  mutable size_t max_request = 0;

 private:
  DataLoader* inner_;
};

TEST(AbsurdSizes, RefusedBeforeAnythingLargeIsRequested) {
  struct Variant {
    const char* name;
    std::function<void(PteFile&)> patch;
    WriteOptions opts;
  };
  const uint64_t huge = uint64_t(1) << 62;
  std::vector<Variant> variants = {
      {"program_size", [&](PteFile& f) { f.put64(16, huge); }, {}},
      {"segment_data_size", [&](PteFile& f) { f.put64(32, huge); }, {}},
      {"segment_size", nullptr,
       WriteOptions{false, false, 128, [&](fb::ProgramT& p) { p.segments[0]->size = huge; }}},
      {"segment_offset", nullptr,
       WriteOptions{false, false, 128, [&](fb::ProgramT& p) { p.segments[0]->offset = huge; }}},
  };
  for (auto& v : variants) {
    PteFile f = add_pte(v.opts);
    if (v.patch)
      v.patch(f);
    TempFile tf(f.bytes);
    auto fl = FileDataLoader::from(tf.path());
    CountingLoader counting(&fl.get());
    for (Verification lvl : {Verification::Minimal, Verification::InternalConsistency}) {
      EXPECT_EQ(Program::load(&counting, lvl).error(), Error::InvalidProgram) << v.name;
      EXPECT_LE(counting.max_request, f.bytes.size()) << v.name;
    }
  }
  // A planned arena of 2^62 bytes is reported, never allocated by Program.
  AddProgram a = make_add_program();
  a.program.execution_plan[0]->non_const_buffer_sizes = {0, int64_t(huge)};
  PteFile f = write_pte(std::move(a.program), a.segments);
  LoadedProgram lp(f.bytes, Verification::InternalConsistency);
  ASSERT_EQ(lp.error, Error::Ok);
  EXPECT_EQ(lp.program->method_meta("forward")->memory_planned_buffer_size(0).get(), int64_t(huge));
}

}  // namespace
