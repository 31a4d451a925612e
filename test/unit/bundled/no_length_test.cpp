// load_bundled_input(), verify_method_outputs() and compute_method_output_error_stats() receive
// the .bpte without its length (upstream's signatures). The length comes from the bundle's own
// structure on every call: nothing is remembered about an address, so a buffer whose address
// once held another bundle is read as what it holds now.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/devtools/bundled_program/bundled_program.h>

#include "bundled_test_util.h"

namespace bp = executorch::bundled_program;
using executorch::runtime::Error;

namespace {

bptest::Bytes fixture(const char* name) {
  return bptest::read_bytes(bptest::fixtures_dir() + "/" + name);
}

// Runs test case `c` of `method` from the length-less buffer `file`: inputs, execute, verdict.
void expect_case_passes(bp::Method& method, void* file, size_t c) {
  ASSERT_EQ(bp::load_bundled_input(method, file, c), Error::Ok) << "case " << c;
  ASSERT_EQ(method.execute(), Error::Ok) << "case " << c;
  EXPECT_EQ(bp::verify_method_outputs(method, file, c, 1e-5, 1e-6), Error::Ok) << "case " << c;
  const bp::ErrorStats stats = bp::compute_method_output_error_stats(method, file, c);
  EXPECT_EQ(stats.status, Error::Ok) << "case " << c;
  EXPECT_LE(stats.max_abs_error, 1e-4) << "case " << c;
}

// An address first holds one bundle, given to get_program_data() with its length; the bundle is
// freed and the allocator hands the same address to a larger bundle, whose owner calls the
// length-less functions on it directly (it read its program from another copy). The arena
// stands in for the allocator, which makes the reuse certain rather than likely.
TEST(BundledNoLength, AnAddressReusedByALargerBundleIsReadAsThatBundle) {
  const bptest::Bytes small = fixture("mlp.bpte");
  const bptest::Bytes large_file = fixture("cnn.bpte");
  ASSERT_GT(small.size, 0u);
  ASSERT_GT(large_file.size, small.size);
  std::vector<std::max_align_t> arena(large_file.size / sizeof(std::max_align_t) + 1);
  void* address = arena.data();

  std::memcpy(address, small.storage.data(), small.size);
  const void* pte = nullptr;
  size_t pte_len = 0;
  ASSERT_EQ(bp::get_program_data(address, small.size, &pte, &pte_len), Error::Ok);

  // mlp.bpte is freed; cnn.bpte now lives at the same address.
  std::memcpy(address, large_file.storage.data(), large_file.size);
  auto large = bptest::open_bundle(large_file);
  ASSERT_EQ(large->error, Error::Ok);
  auto loaded = bptest::load_method(*large, "forward");
  ASSERT_EQ(loaded->method_error, Error::Ok);
  for (size_t c = 0; c < 3; ++c) {
    expect_case_passes(*loaded->method, address, c);
  }
}

// A buffer get_program_data() never saw is read like any other (upstream runners may skip it).
TEST(BundledNoLength, ABufferGetProgramDataNeverSawIsRead) {
  auto bundle = bptest::open_bundle(fixture("mlp.bpte"));
  ASSERT_EQ(bundle->error, Error::Ok);
  auto loaded = bptest::load_method(*bundle, "forward");
  ASSERT_EQ(loaded->method_error, Error::Ok);
  const bptest::Bytes copy = bundle->file;
  for (size_t c = 0; c < 4; ++c) {
    expect_case_passes(*loaded->method, const_cast<std::max_align_t*>(copy.storage.data()), c);
  }
}

TEST(BundledNoLength, NullAndForeignBuffersAreRefused) {
  auto bundle = bptest::open_bundle(fixture("mlp.bpte"));
  ASSERT_EQ(bundle->error, Error::Ok);
  auto loaded = bptest::load_method(*bundle, "forward");
  ASSERT_EQ(loaded->method_error, Error::Ok);
  EXPECT_EQ(bp::load_bundled_input(*loaded->method, nullptr, 0), Error::InvalidArgument);
  EXPECT_EQ(bp::verify_method_outputs(*loaded->method, nullptr, 0), Error::InvalidArgument);
  // A plain program: its identifier is read, nothing else.
  bptest::Bytes pte = bptest::read_bytes("test/fixtures/zoo/mlp.pte");
  test::clear_captured_logs();
  EXPECT_EQ(bp::load_bundled_input(*loaded->method, pte.data(), 0), Error::NotSupported);
  EXPECT_NE(test::captured_logs().find("identifier 'ET12' is not 'BP08'"), std::string::npos)
      << test::captured_logs();
  EXPECT_EQ(bp::compute_method_output_error_stats(*loaded->method, pte.data(), 0).status,
            Error::NotSupported);
}

// The bundle ends right before an inaccessible page: finding its end and verifying it reads
// nothing past the file (a read there is a SIGSEGV).
TEST(BundledNoLength, NothingPastTheBundleIsRead) {
  auto bundle = bptest::open_bundle(fixture("mlp.bpte"));
  ASSERT_EQ(bundle->error, Error::Ok);
  auto loaded = bptest::load_method(*bundle, "forward");
  ASSERT_EQ(loaded->method_error, Error::Ok);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t size = bundle->file.size;
  const size_t pages = (size + page - 1) / page;
  void* map = ::mmap(nullptr, (pages + 1) * page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  uint8_t* guard = static_cast<uint8_t*>(map) + pages * page;
  ASSERT_EQ(::mprotect(guard, page, PROT_NONE), 0);
  // The file's size is a multiple of 32, so its start keeps the alignment its data needs.
  ASSERT_EQ(size % 32, 0u);
  uint8_t* file = guard - size;
  std::memcpy(file, bundle->file.data(), size);
  for (size_t c = 0; c < 4; ++c) {
    expect_case_passes(*loaded->method, file, c);
  }
  ::munmap(map, (pages + 1) * page);
}

// Bytes after the bundle are not part of it: garbage there changes nothing.
TEST(BundledNoLength, BytesAfterTheBundleAreIgnored) {
  auto bundle = bptest::open_bundle(fixture("mlp.bpte"));
  ASSERT_EQ(bundle->error, Error::Ok);
  auto loaded = bptest::load_method(*bundle, "forward");
  ASSERT_EQ(loaded->method_error, Error::Ok);
  std::vector<std::max_align_t> storage(bundle->file.size / sizeof(std::max_align_t) + 64);
  std::memset(storage.data(), 0xA5, storage.size() * sizeof(std::max_align_t));
  std::memcpy(storage.data(), bundle->file.data(), bundle->file.size);
  for (size_t c = 0; c < 4; ++c) {
    expect_case_passes(*loaded->method, storage.data(), c);
  }
}

// A root offset at or past 2^31 cannot belong to a flatbuffer: refused before it is followed.
TEST(BundledNoLength, ARootOffsetPastTheLargestFlatbufferIsRefused) {
  auto bundle = bptest::open_bundle(fixture("mlp.bpte"));
  ASSERT_EQ(bundle->error, Error::Ok);
  auto loaded = bptest::load_method(*bundle, "forward");
  ASSERT_EQ(loaded->method_error, Error::Ok);
  const uint32_t far = 0xFFFFFF00u;
  std::memcpy(bundle->file.data(), &far, sizeof(far));
  test::clear_captured_logs();
  EXPECT_EQ(bp::load_bundled_input(*loaded->method, bundle->file.data(), 0), Error::InvalidProgram);
  EXPECT_NE(test::captured_logs().find("reaches past the largest flatbuffer"), std::string::npos)
      << test::captured_logs();
}

}  // namespace
