// FlatTensorDataMap over .ptd images built with the flatbuffers object API.
#include <cstring>

#include <gtest/gtest.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch_schema/flat_tensor_generated.h>

#include "pte_writer.h"

using namespace et_test;
using executorch::extension::BufferDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::runtime::Error;
namespace ft = flat_tensor_flatbuffer;

namespace {

struct Ptd {
  std::vector<uint8_t> bytes;
  void put64(size_t off, uint64_t v) {
    for (int i = 0; i < 8; ++i)
      bytes[off + i] = uint8_t(v >> (8 * i));
  }
};

// Two float tensors: "a" [2] = {1, 2} and "b" [2,1] = {3, 4}.
Ptd make_ptd(std::function<void(ft::FlatTensorT&)> edit = nullptr) {
  ft::FlatTensorT t;
  std::vector<std::vector<uint8_t>> blobs(2, std::vector<uint8_t>(8));
  const float a[2] = {1, 2}, b[2] = {3, 4};
  std::memcpy(blobs[0].data(), a, 8);
  std::memcpy(blobs[1].data(), b, 8);
  for (int i = 0; i < 2; ++i) {
    auto s = std::make_unique<ft::DataSegmentT>();
    s->offset = i * 16;
    s->size = 8;
    t.segments.push_back(std::move(s));
    auto n = std::make_unique<ft::NamedDataT>();
    n->key = i == 0 ? "a" : "b";
    n->segment_index = i;
    n->tensor_layout = std::make_unique<ft::TensorLayoutT>();
    n->tensor_layout->scalar_type = executorch_flatbuffer::ScalarType::FLOAT;
    n->tensor_layout->sizes = i == 0 ? std::vector<int32_t>{2} : std::vector<int32_t>{2, 1};
    n->tensor_layout->dim_order = i == 0 ? std::vector<uint8_t>{0} : std::vector<uint8_t>{0, 1};
    t.named_data.push_back(std::move(n));
  }
  if (edit)
    edit(t);
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(ft::FlatTensor::Pack(fbb, &t), ft::FlatTensorIdentifier());
  std::vector<uint8_t> flat(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  const size_t header = 48;  // 40 rounded up to 16
  const size_t fb_end = header + flat.size();
  const size_t base = (fb_end + 15) / 16 * 16;
  Ptd p;
  p.bytes.assign(base + 24, 0);
  std::memcpy(p.bytes.data(), flat.data(), 8);
  std::memcpy(p.bytes.data() + 8 + header, flat.data() + 8, flat.size() - 8);
  uint32_t root;
  std::memcpy(&root, flat.data(), 4);
  root += header;
  std::memcpy(p.bytes.data(), &root, 4);
  std::memcpy(p.bytes.data() + 8, "FH01", 4);
  const uint32_t len = 40;
  std::memcpy(p.bytes.data() + 12, &len, 4);
  p.put64(16, header);
  p.put64(24, flat.size());
  p.put64(32, base);
  p.put64(40, 24);
  std::memcpy(p.bytes.data() + base, blobs[0].data(), 8);
  std::memcpy(p.bytes.data() + base + 16, blobs[1].data(), 8);
  return p;
}

Error load_ptd_error(const Ptd& p) {
  AlignedBytes mem(p.bytes);
  BufferDataLoader l(mem.data, mem.size);
  return FlatTensorDataMap::load(&l).error();
}

TEST(FlatTensorDataMap, ReadsKeysLayoutsAndData) {
  Ptd p = make_ptd();
  AlignedBytes mem(p.bytes);
  BufferDataLoader l(mem.data, mem.size);
  auto m = FlatTensorDataMap::load(&l);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->get_num_keys().get(), 2u);
  EXPECT_STREQ(m->get_key(1).get(), "b");
  EXPECT_EQ(m->get_key(2).error(), Error::InvalidArgument);
  auto lay = m->get_tensor_layout("b");
  ASSERT_TRUE(lay.ok());
  EXPECT_EQ(lay->nbytes(), 8u);
  EXPECT_EQ(lay->sizes().size(), 2u);
  auto d = m->get_data("b");
  ASSERT_TRUE(d.ok());
  float v[2];
  std::memcpy(v, d->data(), 8);
  EXPECT_EQ(v[1], 4.0f);
  float into[2] = {};
  EXPECT_EQ(m->load_data_into("a", into, 8), Error::Ok);
  EXPECT_EQ(into[1], 2.0f);
  EXPECT_EQ(m->load_data_into("a", into, 7), Error::InvalidArgument);
  EXPECT_EQ(m->get_data("c").error(), Error::NotFound);
  EXPECT_EQ(m->get_tensor_layout("").error(), Error::NotFound);
}

TEST(FlatTensorDataMap, MalformedFilesGetCleanErrors) {
  {
    Ptd p = make_ptd();
    std::memcpy(p.bytes.data() + 8, "FH02", 4);
    EXPECT_EQ(load_ptd_error(p), Error::InvalidExternalData);
  }
  {
    Ptd p = make_ptd();
    std::memcpy(p.bytes.data() + 4, "XX01", 4);
    EXPECT_EQ(load_ptd_error(p), Error::InvalidExternalData);
  }
  {
    Ptd p = make_ptd();
    p.put64(40, ~uint64_t(0));  // segment area wraps
    EXPECT_EQ(load_ptd_error(p), Error::InvalidExternalData);
  }
  {
    Ptd p = make_ptd();
    p.put64(24, uint64_t(1) << 40);  // flatbuffer past EOF
    EXPECT_EQ(load_ptd_error(p), Error::InvalidExternalData);
  }
  {
    Ptd p = make_ptd();
    p.bytes.resize(p.bytes.size() - 1);  // truncated segment area
    EXPECT_EQ(load_ptd_error(p), Error::InvalidExternalData);
  }
  EXPECT_EQ(
      load_ptd_error(make_ptd([](ft::FlatTensorT& t) { t.named_data[0]->segment_index = 7; })),
      Error::InvalidExternalData);
  EXPECT_EQ(load_ptd_error(
                make_ptd([](ft::FlatTensorT& t) { t.segments[1]->offset = ~uint64_t(0) - 2; })),
            Error::InvalidExternalData);
  EXPECT_EQ(load_ptd_error(
                make_ptd([](ft::FlatTensorT& t) { t.named_data[0]->tensor_layout->sizes = {3}; })),
            Error::InvalidExternalData);  // 12 bytes in an 8-byte segment
  EXPECT_EQ(load_ptd_error(
                make_ptd([](ft::FlatTensorT& t) { t.named_data[0]->tensor_layout->sizes = {-1}; })),
            Error::InvalidExternalData);
  EXPECT_EQ(load_ptd_error(make_ptd(
                [](ft::FlatTensorT& t) { t.named_data[0]->tensor_layout->dim_order = {}; })),
            Error::InvalidExternalData);
  EXPECT_EQ(load_ptd_error(make_ptd([](ft::FlatTensorT& t) {
              t.named_data[0]->tensor_layout->scalar_type =
                  static_cast<executorch_flatbuffer::ScalarType>(77);
            })),
            Error::InvalidExternalData);
  Ptd tiny;
  tiny.bytes.assign(20, 0);
  EXPECT_EQ(load_ptd_error(tiny), Error::InvalidExternalData);
}

}  // namespace
