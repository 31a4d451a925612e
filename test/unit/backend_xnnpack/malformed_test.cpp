// The payload is untrusted: every malformed one is refused at init with a typed error (and a
// log line naming the problem), never a crash or a wrong answer later; well-formed payloads
// the backend does not run are refused with NotSupported naming what is missing.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include <sys/mman.h>

#include <gtest/gtest.h>

#include "../common/log_capture.h"
#include "xnn_test_util.h"

using executorch::runtime::Error;
using xnn_test::Delegate;
using xnn_test::GraphWriter;
using xnn_test::kNone;
namespace fb = xnn_test::fb;
using T = fb::XNodeUnion;

namespace {

// A valid graph: y[2, 3] = relu(x[2, 4] . W[3, 4]^T + b[3]).
GraphWriter linear_graph() {
  GraphWriter g;
  const uint32_t x = g.value({2, 4}, 0);
  const uint32_t w = g.constant({3, 4}, std::vector<float>(12, 0.5f));
  const uint32_t b = g.constant({3}, {1, 2, 3});
  const uint32_t y = g.value({2, 3}, 1, true);
  auto* p = new fb::XNNFullyConnectedT();
  p->input1_id = x;
  p->filter_id = w;
  p->bias_id = b;
  p->output_id = y;
  GraphWriter::clamp(g.node(T::XNNFullyConnected, p), 0, INFINITY);
  return g;
}

fb::XNNFullyConnectedT* fc(GraphWriter& g) {
  return g.graph.xnodes[0]->xnode_union.AsXNNFullyConnected();
}

// init() on `payload` fails with `want` and logs `message`.
void expect_refused(const std::vector<uint8_t>& payload, Error want, const char* message) {
  test::clear_captured_logs();
  Delegate d(payload);
  EXPECT_EQ(d.init_error, want) << test::captured_logs();
  EXPECT_NE(test::captured_logs().find(message), std::string::npos) << test::captured_logs();
}

void expect_refused(const std::function<void(GraphWriter&)>& corrupt, Error want,
                    const char* message) {
  GraphWriter g = linear_graph();
  corrupt(g);
  expect_refused(g.payload(), want, message);
}

TEST(XnnpackMalformed, TheValidGraphLoads) {
  Delegate d(linear_graph().payload());
  EXPECT_EQ(d.init_error, Error::Ok);
}

TEST(XnnpackMalformed, HeaderRegions) {
  const std::vector<uint8_t> good = linear_graph().payload();
  auto patched = [&](size_t at, uint64_t v, size_t bytes) {
    std::vector<uint8_t> b = good;
    GraphWriter::put(b, at, v, bytes);
    return b;
  };
  expect_refused(patched(10, good.size(), 4), Error::InvalidProgram, "payload flatbuffer");
  expect_refused(patched(14, 0xFFFFFFF0u, 4), Error::InvalidProgram, "payload flatbuffer");
  expect_refused(patched(18, 40, 4), Error::InvalidProgram, "overlaps the flatbuffer");
  expect_refused(patched(22, UINT64_MAX, 8), Error::InvalidProgram, "constant data");
  expect_refused(patched(8, 4, 2), Error::InvalidProgram, "header length");
  std::vector<uint8_t> truncated(good.begin(), good.begin() + 20);
  expect_refused(truncated, Error::InvalidProgram, "shorter than its");
}

TEST(XnnpackMalformed, FlatbufferIdentifierAndVerifier) {
  std::vector<uint8_t> bad_id = linear_graph().payload();
  std::memcpy(bad_id.data() + 32 + 4, "XN99", 4);
  expect_refused(bad_id, Error::DelegateInvalidCompatibility, "XN99");
  // A flatbuffer cut short fails the verifier.
  std::vector<uint8_t> cut = linear_graph().payload();
  GraphWriter::put(cut, 14, 24, 4);
  expect_refused(cut, Error::InvalidProgram, "fails verification");
}

// flatbuffers::Verifier asserts (aborts) on a buffer of 2 GiB or more: such a payload is refused
// before it runs.
TEST(XnnpackMalformed, FlatbufferOfTwoGigabytesIsRefusedBeforeTheVerifier) {
  const size_t size = size_t{1} << 31;  // zero pages, never touched
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  executorch::runtime::FreeableBuffer buffer(p, size, nullptr);
  executorch::extension::MallocMemoryAllocator allocator;
  executorch::runtime::BackendInitContext context(&allocator);
  test::clear_captured_logs();
  auto r = xnn_test::backend()->init(context, &buffer, {});
  EXPECT_EQ(r.error(), Error::InvalidProgram);
  EXPECT_NE(test::captured_logs().find("the XNNGraph flatbuffer is 2147483648 bytes"),
            std::string::npos)
      << test::captured_logs();
  munmap(p, size);
}

TEST(XnnpackMalformed, ValueIdsAndOrder) {
  expect_refused([](GraphWriter& g) { fc(g)->input1_id = 99; }, Error::InvalidProgram,
                 "input1_id 99 names no value");
  expect_refused([](GraphWriter& g) { fc(g)->output_id = 1; }, Error::InvalidProgram,
                 "is a constant or an external input");
  // A node that reads a value no earlier node computed.
  expect_refused(
      [](GraphWriter& g) {
        const uint32_t later = g.value({2, 4});
        fc(g)->input1_id = later;
      },
      Error::InvalidProgram, "is read before any node computes it");
  expect_refused([](GraphWriter& g) { g.tensor(2)->id_out = 1; }, Error::InvalidProgram,
                 "defined twice");
  expect_refused([](GraphWriter& g) { g.tensor(3)->id_out = 7; }, Error::InvalidProgram,
                 "id_out 7");
  // An external output that no node writes.
  expect_refused([](GraphWriter& g) { g.value({1}, 2, true); }, Error::InvalidProgram,
                 "computed by no node");
}

TEST(XnnpackMalformed, ExternalIds) {
  expect_refused([](GraphWriter& g) { g.tensor(3)->external_id = 5; }, Error::InvalidProgram,
                 "external_id 5");
  expect_refused([](GraphWriter& g) { g.tensor(3)->external_id = 0; }, Error::InvalidProgram,
                 "used by two values");
  expect_refused([](GraphWriter& g) { g.tensor(0)->flags = 0x10; }, Error::InvalidProgram,
                 "unknown flag bits");
}

TEST(XnnpackMalformed, Shapes) {
  expect_refused(
      [](GraphWriter& g) {
        g.tensor(3)->dims = {2, 4};
      },
      Error::InvalidProgram, "output has 8 elements");
  expect_refused(
      [](GraphWriter& g) {
        g.tensor(0)->dims = {2, 5};
      },
      Error::InvalidProgram, "does not match input channels");
  expect_refused([](GraphWriter& g) { g.tensor(0)->num_dims = 3; }, Error::InvalidProgram,
                 "num_dims 3 but 2 dims");
  expect_refused(
      [](GraphWriter& g) {
        g.tensor(0)->dims = {1u << 31, 1u << 31, 1u << 31};
        g.tensor(0)->num_dims = 3;
      },
      Error::InvalidProgram, "element count overflows");
  expect_refused(
      [](GraphWriter& g) {
        g.tensor(0)->dims = {1, 1, 1, 1, 1, 1, 2, 4};
        g.tensor(0)->num_dims = 8;
      },
      Error::InvalidProgram, "rank 8 exceeds 6");
}

TEST(XnnpackMalformed, Constants) {
  // The constant_data entry claims another size than the value's shape needs.
  expect_refused([](GraphWriter& g) { g.graph.constant_data[1]->size = 44; }, Error::InvalidProgram,
                 "holds 44 bytes, its shape needs 48");
  // The entry points past the constant region.
  expect_refused([](GraphWriter& g) { g.graph.constant_data[2]->offset = 1u << 20; },
                 Error::InvalidProgram, "outside the payload's");
  expect_refused([](GraphWriter& g) { g.tensor(1)->constant_buffer_idx = 9; },
                 Error::InvalidProgram, "constant_buffer_idx 9");
  // A named constant, without named data.
  expect_refused(
      [](GraphWriter& g) {
        g.graph.constant_data[1]->named_key = "weights";
        g.graph.constant_data[1]->offset = UINT64_MAX;
      },
      Error::InvalidExternalData, "'weights'");
  expect_refused([](GraphWriter& g) { g.tensor(0)->constant_buffer_idx = 1; },
                 Error::InvalidProgram, "both external and constant");
}

TEST(XnnpackMalformed, NodeParameters) {
  expect_refused([](GraphWriter& g) { fc(g)->flags = 0x4; }, Error::NotSupported,
                 "flags 0x4 are not supported");
  expect_refused([](GraphWriter& g) { GraphWriter::clamp(g.graph.xnodes[0].get(), 2, 1); },
                 Error::InvalidProgram, "output_min 2 is above output_max 1");
  // Pooling whose window does not fit.
  GraphWriter g;
  const uint32_t x = g.value({1, 2, 2, 3}, 0), y = g.value({1, 1, 1, 3}, 1, true);
  auto* p = new fb::_XNNPooling2DT();
  p->pooling_height = p->pooling_width = 5;
  p->stride_height = p->stride_width = 1;
  p->dilation_height = p->dilation_width = 1;
  p->input_id = x;
  p->output_id = y;
  g.node(T::XNNMaxPooling2d, p);
  expect_refused(g.payload(), Error::InvalidProgram, "does not fit the padded");
}

TEST(XnnpackMalformed, UnsupportedIsNamed) {
  // XNNPACK-internal datatypes upstream's exporter never writes.
  for (auto dt : {fb::XNNDatatype::xnn_datatype_int32, fb::XNNDatatype::xnn_datatype_pfp32,
                  fb::XNNDatatype::xnn_datatype_qpint8}) {
    expect_refused([dt](GraphWriter& g2) { g2.tensor(0)->datatype = dt; }, Error::NotSupported,
                   fb::EnumNameXNNDatatype(dt));
  }
  expect_refused(
      [](GraphWriter& g2) { g2.tensor(0)->dq_datatype = fb::XNNDatatype::xnn_datatype_qint8; },
      Error::NotSupported, "dynamic quantization");
  // A quantized value (per-tensor qint8).
  expect_refused(
      [](GraphWriter& g2) {
        auto q = std::make_unique<fb::XNNQuantizedTensorValueT>();
        q->tensor_value = std::make_unique<fb::XNNTensorValueT>(*g2.tensor(0));
        q->tensor_value->datatype = fb::XNNDatatype::xnn_datatype_qint8;
        auto* per_tensor = new fb::PerTensorQuantT();
        per_tensor->scale = 0.5f;
        q->quant_params.type = fb::XNNQuantParams::PerTensorQuant;
        q->quant_params.value = per_tensor;
        g2.graph.xvalues[0]->xvalue_union.Reset();
        g2.graph.xvalues[0]->xvalue_union.type = fb::XValueUnion::XNNQuantizedTensorValue;
        g2.graph.xvalues[0]->xvalue_union.value = q.release();
      },
      Error::NotSupported, "quantized external values (xnn_datatype_qint8)");
}

// Every single-byte corruption of a valid payload either loads or is refused; none crashes
// (under the sanitizer tree, none reads out of bounds).
TEST(XnnpackMalformed, EveryByteFlipIsHandled) {
  const std::vector<uint8_t> good = linear_graph().payload();
  size_t refused = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> b = good;
    b[i] ^= 0xFF;
    Delegate d(b);
    if (d.init_error != Error::Ok) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0u);
}

// Execution checks the call's tensors against the graph.
TEST(XnnpackMalformed, ArgumentsAreChecked) {
  Delegate d(linear_graph().payload());
  ASSERT_EQ(d.init_error, Error::Ok);
  float xd[8] = {}, yd[6] = {};
  int32_t xs[2] = {2, 4}, wrong[2] = {4, 2}, ys[2] = {2, 3};
  executorch::aten::TensorImpl xi(executorch::aten::ScalarType::Float, 2, xs, xd);
  executorch::aten::TensorImpl wi(executorch::aten::ScalarType::Float, 2, wrong, xd);
  executorch::aten::TensorImpl ii(executorch::aten::ScalarType::Int, 2, xs, xd);
  executorch::aten::TensorImpl yi(executorch::aten::ScalarType::Float, 2, ys, yd);
  using executorch::aten::Tensor;
  executorch::runtime::EValue x{Tensor(&xi)}, w{Tensor(&wi)}, i{Tensor(&ii)}, y{Tensor(&yi)}, none;
  EXPECT_EQ(d.execute({&x, &y}), Error::Ok);
  for (int k = 0; k < 6; ++k)
    EXPECT_EQ(yd[k], 3.0f * 0 + (k % 3) + 1);  // x = 0: relu(b)
  EXPECT_EQ(d.execute({&w, &y}), Error::InvalidArgument);
  EXPECT_EQ(d.execute({&i, &y}), Error::InvalidArgument);
  EXPECT_EQ(d.execute({&none, &y}), Error::InvalidArgument);
  EXPECT_EQ(d.execute({&x}), Error::InvalidArgument);
}

}  // namespace
