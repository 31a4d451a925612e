// Fuzz target: an XNNPACK delegate payload (the "XH00" header, the XNNGraph flatbuffer and its
// constant region) through XnnpackBackend's init, and, when it is accepted, executions on
// zero-filled arguments: shaped and typed as the graph declares them, then with every input dim
// halved (the reshape pass, as for a dynamic dim below its bound), then at the declared shapes
// again. Named constants come from a map that serves the same filler bytes for any key, so
// payloads lowered with named data (every zoo *_xnnpack program: the seeds are their payloads)
// still reach the node checks and the execution. The structure-aware mutator is xnnpack_mutator.cpp.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include "../../runtime/backends/xnnpack/runtime/graph.h"
#include "fuzz_common.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::TensorLayout;

namespace {

// The most argument elements one input executes with (larger graphs are only initialized).
constexpr size_t kMaxArgumentElements = size_t{1} << 22;
constexpr size_t kFillerBytes = size_t{1} << 20;
// Not zero: the quantized zoo payloads keep their scales in named data too, and a scale of 0 is
// refused at init. 0x3C bytes read as a small positive float (0x3C3C3C3C, about 0.0115), and as
// bf16/fp16 scales, int8 weights and 4-bit weights that are all in range.
constexpr uint8_t kFiller = 0x3C;

class FillerDataMap final : public executorch::runtime::NamedDataMap {
 public:
  Result<const TensorLayout> get_tensor_layout(std::string_view) const override {
    return Error::NotFound;
  }
  Result<FreeableBuffer> get_data(std::string_view) const override {
    static const std::vector<uint8_t> filler(kFillerBytes, kFiller);
    return FreeableBuffer(filler.data(), filler.size(), nullptr);
  }
  Error load_data_into(std::string_view, void*, size_t) const override {
    return Error::NotSupported;
  }
  Result<uint32_t> get_num_keys() const override {
    return 0u;
  }
  Result<const char*> get_key(uint32_t) const override {
    return Error::InvalidArgument;
  }
};

// The dtype the backend binds an argument of this format to: a half-precision value's own, an
// index output (ArgMaxPooling2d) int64 or int32 by external id, so both widths run.
ScalarType argument_dtype(executorch::backends::xnnpack::FloatFormat format, uint32_t external_id) {
  using executorch::backends::xnnpack::FloatFormat;
  switch (format) {
    case FloatFormat::kFp16:
      return ScalarType::Half;
    case FloatFormat::kBf16:
      return ScalarType::BFloat16;
    case FloatFormat::kIndex:
      return external_id % 2 == 0 ? ScalarType::Long : ScalarType::Int;
    default:
      return ScalarType::Float;
  }
}

// Whether a tensor of these dims can be built at all: its sizes and strides are int32, and a
// stride multiplies the dims after it even when another dim is 0 (numel 0, strides huge).
bool fits_a_tensor(const std::vector<size_t>& dims) {
  size_t product = 1;
  for (size_t d : dims) {
    product *= d == 0 ? 1 : d;
    if (product > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  using executorch::backends::xnnpack::Graph;
  const fuzz::AlignedInput input(data, size);
  static const FillerDataMap named;
  // The graph as the backend sees it, for the argument shapes.
  Result<std::unique_ptr<Graph>> graph =
      executorch::backends::xnnpack::build_graph(input.data(), input.size(), &named);
  executorch::runtime::BackendInterface* backend =
      executorch::runtime::get_backend_class("XnnpackBackend");
  if (backend == nullptr) {
    __builtin_trap();  // the backend archive was not linked whole
  }
  executorch::extension::MallocMemoryAllocator allocator;
  executorch::runtime::BackendInitContext init_ctx(&allocator, nullptr, "forward", &named);
  FreeableBuffer payload(input.data(), input.size(), nullptr);
  Result<executorch::runtime::DelegateHandle*> handle = backend->init(init_ctx, &payload, {});
  // The backend and build_graph decide alike.
  if (handle.ok() != graph.ok()) {
    __builtin_trap();
  }
  if (fuzz::tracing()) {
    std::fprintf(stderr, "xnnpack: init %s (error 0x%x)\n", handle.ok() ? "accepted" : "refused",
                 static_cast<unsigned>(handle.error()));
  }
  if (!handle.ok()) {
    return 0;
  }
  const Graph& g = *graph.get();
  size_t total = 0;
  bool representable = true;
  for (const auto& v : g.values) {
    if ((v.flags & 3u) != 0) {
      total += v.numel;
      representable = representable && fits_a_tensor(v.dims);
    }
  }
  if ((total > kMaxArgumentElements || !representable) && fuzz::tracing()) {
    std::fprintf(stderr, "xnnpack: %zu argument elements%s, not executed\n", total,
                 representable ? "" : " (a shape no tensor holds)");
  }
  if (total <= kMaxArgumentElements && representable) {
    std::vector<std::vector<int32_t>> sizes(g.num_args);
    // Eight bytes an element, enough for every dtype an argument takes.
    std::vector<std::vector<uint64_t>> storage(g.num_args);
    std::vector<ScalarType> dtypes(g.num_args, ScalarType::Float);
    std::vector<std::unique_ptr<TensorImpl>> impls(g.num_args);
    std::vector<EValue> values(g.num_args);
    std::vector<EValue*> args(g.num_args);
    for (const auto& v : g.values) {
      if ((v.flags & 3u) == 0)
        continue;
      const uint32_t e = v.external_id;
      sizes[e].assign(v.dims.begin(), v.dims.end());
      storage[e].assign(v.numel + 1, 0);
      dtypes[e] = argument_dtype(v.format, e);
      // Outputs may be resized below their declared (bound) shape.
      impls[e] = std::make_unique<TensorImpl>(
          dtypes[e], static_cast<ssize_t>(sizes[e].size()), sizes[e].data(), storage[e].data(),
          nullptr, nullptr,
          (v.flags & 2u) != 0 ? executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND
                              : executorch::aten::TensorShapeDynamism::STATIC);
      values[e] = EValue(Tensor(impls[e].get()));
    }
    for (size_t i = 0; i < g.num_args; ++i)
      args[i] = &values[i];
    executorch::runtime::BackendExecutionContext exec_ctx;
    const auto execute = [&]() {
      const Error e = backend->execute(
          exec_ctx, *handle, executorch::runtime::Span<EValue*>(args.data(), args.size()));
      if (fuzz::tracing()) {
        std::fprintf(stderr, "xnnpack: execute with %zu arguments: error 0x%x\n", args.size(),
                     static_cast<unsigned>(e));
      }
    };
    execute();
    // Every input dim halved (storage stays at the bound), then the declared shapes again.
    std::vector<std::unique_ptr<TensorImpl>> declared(g.num_args);
    std::vector<std::vector<int32_t>> halved(g.num_args);
    for (const auto& v : g.values) {
      if ((v.flags & 1u) == 0)
        continue;
      const uint32_t e = v.external_id;
      for (int32_t d : sizes[e])
        halved[e].push_back(d / 2 + d % 2);  // rounded up; d + 1 would overflow at INT32_MAX
      declared[e] = std::move(impls[e]);
      impls[e] = std::make_unique<TensorImpl>(dtypes[e], static_cast<ssize_t>(halved[e].size()),
                                              halved[e].data(), storage[e].data());
      values[e] = EValue(Tensor(impls[e].get()));
    }
    execute();
    for (const auto& v : g.values) {
      if ((v.flags & 1u) != 0)
        values[v.external_id] = EValue(Tensor(declared[v.external_id].get()));
    }
    execute();
  }
  backend->destroy(*handle);
  return 0;
}
