// MemoryAllocator, HierarchicalAllocator, MemoryManager and FreeableBuffer.
#include <gtest/gtest.h>

#include <cstdint>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/tensor_layout.h>
#include <executorch/runtime/executor/memory_manager.h>

using executorch::runtime::DataLoader;
using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Result;
using executorch::runtime::Span;

TEST(MemoryAllocatorTest, AlignmentAndExhaustion) {
  alignas(64) uint8_t buf[128];
  MemoryAllocator alloc(sizeof(buf), buf);
  EXPECT_EQ(alloc.size(), 128u);
  EXPECT_EQ(alloc.base_address(), buf);

  void* a = alloc.allocate(1);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, buf);
  void* b = alloc.allocate(8, 16);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 16, 0u);
  EXPECT_EQ(b, buf + 16);
  void* c = alloc.allocate(4);  // default alignment: pointer size
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c) % alignof(void*), 0u);
  EXPECT_EQ(alloc.used_size(), 28u);
  EXPECT_EQ(alloc.free_size(), 100u);

  EXPECT_EQ(alloc.allocate(8, 3), nullptr);  // not a power of two
  EXPECT_EQ(alloc.allocate(8, 0), nullptr);
  EXPECT_EQ(alloc.allocate(1000), nullptr);  // exhausted: nullptr, no abort
  EXPECT_EQ(alloc.allocate(SIZE_MAX), nullptr);
  EXPECT_NE(alloc.allocate(100, 1), nullptr);  // exactly the rest
  EXPECT_EQ(alloc.allocate(1, 1), nullptr);

  alloc.reset();
  EXPECT_EQ(alloc.used_size(), 0u);
  EXPECT_EQ(alloc.allocate(128, 1), buf);
}

TEST(MemoryAllocatorTest, TypedHelpers) {
  alignas(8) uint8_t buf[64];
  MemoryAllocator alloc(sizeof(buf), buf);
  int64_t* one = alloc.allocateInstance<int64_t>();
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(one) % alignof(int64_t), 0u);
  int32_t* list = alloc.allocateList<int32_t>(4);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(alloc.allocateList<int64_t>(SIZE_MAX / 4), nullptr);  // overflow
  EXPECT_EQ(alloc.allocateList<int64_t>(100), nullptr);
}

TEST(MemoryAllocatorTest, NullBufferAllocatesNothing) {
  MemoryAllocator alloc(100, nullptr);
  EXPECT_EQ(alloc.allocate(1), nullptr);
  EXPECT_EQ(alloc.size(), 0u);
}

TEST(HierarchicalAllocatorTest, Bounds) {
  uint8_t b0[16];
  uint8_t b1[32];
  Span<uint8_t> spans[] = {{b0, sizeof(b0)}, {b1, sizeof(b1)}};
  HierarchicalAllocator planned({spans, 2});

  Result<void*> r = planned.get_offset_address(1, 8, 24);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.get(), b1 + 8);
  EXPECT_EQ(planned.get_offset_address(0, 0, 16).get(), b0);
  EXPECT_EQ(planned.get_offset_address(0, 16, 0).get(), b0 + 16);
  EXPECT_EQ(planned.get_offset_address(1, 8, 25).error(), Error::MemoryAllocationFailed);
  EXPECT_EQ(planned.get_offset_address(0, SIZE_MAX, 2).error(), Error::MemoryAllocationFailed);
  EXPECT_EQ(planned.get_offset_address(2, 0, 1).error(), Error::InvalidArgument);
  EXPECT_TRUE(planned.planned_buffer_devices().empty());

  HierarchicalAllocator copy = planned;
  EXPECT_EQ(copy.get_offset_address(1, 0, 1).get(), b1);
}

TEST(MemoryManagerTest, Accessors) {
  uint8_t m[16];
  uint8_t t[16];
  MemoryAllocator method_alloc(sizeof(m), m);
  MemoryAllocator temp_alloc(sizeof(t), t);
  uint8_t p[8];
  Span<uint8_t> spans[] = {{p, sizeof(p)}};
  HierarchicalAllocator planned({spans, 1});
  MemoryManager mm(&method_alloc, &planned, &temp_alloc);
  EXPECT_EQ(mm.method_allocator(), &method_alloc);
  EXPECT_EQ(mm.planned_memory(), &planned);
  EXPECT_EQ(mm.temp_allocator(), &temp_alloc);
  EXPECT_FALSE(mm.has_device_memory());
  MemoryManager minimal(&method_alloc);
  EXPECT_EQ(minimal.planned_memory(), nullptr);
  EXPECT_EQ(minimal.temp_allocator(), nullptr);
}

TEST(MemoryManagerDeathTest, SameMethodAndTempAllocator) {
  uint8_t m[16];
  MemoryAllocator alloc(sizeof(m), m);
  EXPECT_DEATH(MemoryManager(&alloc, nullptr, &alloc), "");
}

namespace {
struct FreeRecord {
  int calls = 0;
  const void* data = nullptr;
  size_t size = 0;
};
void record_free(void* ctx, void* data, size_t size) {
  auto* rec = static_cast<FreeRecord*>(ctx);
  rec->calls++;
  rec->data = data;
  rec->size = size;
}
void record_free_u64(void* ctx, uint64_t, size_t size) {
  auto* rec = static_cast<FreeRecord*>(ctx);
  rec->calls++;
  rec->size = size;
}
}  // namespace

TEST(FreeableBufferTest, FreeSemantics) {
  static const char data[] = "abcd";
  FreeRecord rec;
  {
    FreeableBuffer fb(data, 4, record_free, &rec);
    EXPECT_EQ(fb.size(), 4u);
    EXPECT_EQ(fb.data(), data);
    EXPECT_EQ(fb.data_safe().get(), data);
    EXPECT_EQ(fb.data_uint64_type().error(), Error::InvalidType);
    fb.Free();
    EXPECT_EQ(rec.calls, 1);
    EXPECT_EQ(rec.data, data);
    EXPECT_EQ(rec.size, 4u);
    EXPECT_EQ(fb.data(), nullptr);
    EXPECT_EQ(fb.size(), 0u);
    fb.Free();  // idempotent
  }
  EXPECT_EQ(rec.calls, 1);  // destructor after Free does nothing

  FreeRecord rec2;
  {
    FreeableBuffer a(data, 4, record_free, &rec2);
    FreeableBuffer b(std::move(a));
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_EQ(b.data(), data);
    FreeableBuffer c;
    c = std::move(b);
    EXPECT_EQ(rec2.calls, 0);
  }
  EXPECT_EQ(rec2.calls, 1);  // freed exactly once, by the final owner

  FreeableBuffer no_free(data, 4, nullptr);
  no_free.Free();  // no callback: fine

  FreeRecord rec3;
  {
    FreeableBuffer u(uint64_t{0x1234}, 8, record_free_u64, &rec3);
    EXPECT_EQ(u.data_uint64_type().get(), 0x1234u);
    EXPECT_EQ(u.data_safe().error(), Error::InvalidType);
  }
  EXPECT_EQ(rec3.calls, 1);
  static_assert(!std::is_copy_constructible<FreeableBuffer>::value, "move-only");
}

namespace {
class VectorLoader final : public DataLoader {
 public:
  explicit VectorLoader(size_t n) : n_(n) {}
  Result<FreeableBuffer> load(size_t, size_t size, const SegmentInfo&) const override {
    return FreeableBuffer(nullptr, size, nullptr);
  }
  Result<size_t> size() const override {
    return n_;
  }

 private:
  size_t n_;
};
}  // namespace

TEST(DataLoaderTest, DefaultLoadIntoIsNotImplemented) {
  VectorLoader loader(10);
  DataLoader::SegmentInfo info(DataLoader::SegmentInfo::Type::Backend, 2, "xnn");
  EXPECT_EQ(info.segment_index, 2u);
  char buf[4];
  EXPECT_EQ(loader.load_into(0, 4, info, buf), Error::NotImplemented);
  EXPECT_EQ(loader.size().get(), 10u);
  EXPECT_EQ(loader.load(0, 3, info)->size(), 3u);
}

TEST(TensorLayoutTest, CreateValidates) {
  const int32_t sizes[] = {2, 3};
  const uint8_t order[] = {1, 0};
  auto layout = executorch::runtime::TensorLayout::create({sizes, 2}, {order, 2},
                                                          executorch::aten::ScalarType::Float);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->nbytes(), 24u);
  EXPECT_EQ(layout->sizes().size(), 2u);
  const uint8_t bad_order[] = {1, 1};
  EXPECT_EQ(executorch::runtime::TensorLayout::create({sizes, 2}, {bad_order, 2},
                                                      executorch::aten::ScalarType::Float)
                .error(),
            Error::InvalidArgument);
  EXPECT_EQ(executorch::runtime::TensorLayout::create({sizes, 2}, {order, 1},
                                                      executorch::aten::ScalarType::Float)
                .error(),
            Error::InvalidArgument);
}
