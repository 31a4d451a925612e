// Helpers for calling kernels through the registry exactly as a Method does:
// tensors built from .npy data in any dim order, EValue argument arrays with
// the trailing return slot, logical-order comparison.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

namespace kernel_test {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Error;
using executorch::runtime::EValue;

/* A tensor that owns its metadata and storage. */
struct OwnedTensor {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  std::vector<uint64_t> storage;  // 8-byte aligned
  std::unique_ptr<TensorImpl> impl;

  /*
   * dtype, logical shape, dim order (empty = contiguous); capacity_numel
   * elements of storage (at least numel(shape)).
   */
  OwnedTensor(ScalarType dtype, std::vector<int32_t> shape, std::vector<uint8_t> order = {},
              bool dynamic = false, size_t capacity_numel = 0)
      : sizes(std::move(shape)), dim_order(std::move(order)) {
    const size_t rank = sizes.size();
    if (dim_order.empty()) {
      for (size_t i = 0; i < rank; ++i) {
        dim_order.push_back(static_cast<uint8_t>(i));
      }
    }
    strides.assign(rank, 1);
    if (rank > 0) {
      executorch::runtime::dim_order_to_stride_nocheck(sizes.data(), dim_order.data(), rank,
                                                       strides.data());
    }
    size_t n = 1;
    for (int32_t s : sizes) {
      n *= static_cast<size_t>(s);
    }
    if (capacity_numel < n) {
      capacity_numel = n;
    }
    const size_t bytes = capacity_numel * executorch::runtime::elementSize(dtype);
    storage.assign(bytes / 8 + 2, 0);
    impl =
        std::make_unique<TensorImpl>(dtype, static_cast<ssize_t>(rank), sizes.data(),
                                     storage.data(), dim_order.data(), strides.data(),
                                     dynamic ? executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND
                                             : executorch::aten::TensorShapeDynamism::STATIC);
  }

  Tensor tensor() const {
    return Tensor(impl.get());
  }

  /* Writes C-order logical data (numel * element size bytes) into the layout. */
  void set_logical(const uint8_t* data) {
    const Tensor t = tensor();
    const size_t es = t.element_size();
    const size_t rank = t.dim();
    std::vector<int32_t> idx(rank, 0);
    char* base = static_cast<char*>(t.mutable_data_ptr());
    for (ssize_t i = 0; i < t.numel(); ++i) {
      size_t off = 0;
      for (size_t d = 0; d < rank; ++d) {
        off += static_cast<size_t>(idx[d]) * static_cast<size_t>(t.strides()[d]);
      }
      std::memcpy(base + off * es, data + static_cast<size_t>(i) * es, es);
      for (ssize_t d = static_cast<ssize_t>(rank) - 1; d >= 0; --d) {
        if (++idx[d] < t.sizes()[d]) {
          break;
        }
        idx[d] = 0;
      }
    }
  }
};

/* The tensor's elements in logical C order, as bytes. */
inline std::vector<uint8_t> logical_bytes(const Tensor& t) {
  const size_t es = t.element_size();
  const size_t rank = t.dim();
  std::vector<uint8_t> out(static_cast<size_t>(t.numel()) * es);
  std::vector<int32_t> idx(rank, 0);
  const char* base = static_cast<const char*>(t.const_data_ptr());
  for (ssize_t i = 0; i < t.numel(); ++i) {
    size_t off = 0;
    for (size_t d = 0; d < rank; ++d) {
      off += static_cast<size_t>(idx[d]) * static_cast<size_t>(t.strides()[d]);
    }
    std::memcpy(out.data() + static_cast<size_t>(i) * es, base + off * es, es);
    for (ssize_t d = static_cast<ssize_t>(rank) - 1; d >= 0; --d) {
      if (++idx[d] < t.sizes()[d]) {
        break;
      }
      idx[d] = 0;
    }
  }
  return out;
}

/* Element i of raw logical bytes as double. */
inline double element_as_double(ScalarType t, const uint8_t* p, size_t i) {
  switch (t) {
#define KT_CASE(ctype, name)                               \
  case ScalarType::name: {                                 \
    ctype v;                                               \
    std::memcpy(&v, p + i * sizeof(ctype), sizeof(ctype)); \
    return static_cast<double>(static_cast<float>(v));     \
  }
    KT_CASE(executorch::aten::Half, Half)
    KT_CASE(executorch::aten::BFloat16, BFloat16)
#undef KT_CASE
#define KT_CASE(ctype, name)                               \
  case ScalarType::name: {                                 \
    ctype v;                                               \
    std::memcpy(&v, p + i * sizeof(ctype), sizeof(ctype)); \
    return static_cast<double>(v);                         \
  }
    KT_CASE(float, Float)
    KT_CASE(double, Double)
    KT_CASE(int64_t, Long)
    KT_CASE(int32_t, Int)
    KT_CASE(int16_t, Short)
    KT_CASE(int8_t, Char)
    KT_CASE(uint8_t, Byte)
    KT_CASE(bool, Bool)
#undef KT_CASE
    default:
      return std::nan("");
  }
}

/* Boxed list arguments (int[], Tensor[], Tensor?[]) laid out as the emitter
   writes them; each lives as long as its holder. */
struct IntList {
  std::vector<EValue> vals;
  std::vector<EValue*> ptrs;
  std::vector<int64_t> unboxed;
  std::unique_ptr<BoxedEvalueList<int64_t>> list;
  EValue ev;
  explicit IntList(std::vector<int64_t> v) {
    vals.reserve(v.size());
    for (int64_t x : v) {
      vals.emplace_back(x);
    }
    for (auto& e : vals) {
      ptrs.push_back(&e);
    }
    unboxed.resize(v.size());
    list = std::make_unique<BoxedEvalueList<int64_t>>(ptrs.data(), unboxed.data(),
                                                      static_cast<int>(v.size()));
    ev = EValue(list.get());
  }
};

struct TList {
  std::vector<EValue> vals;
  std::vector<EValue*> ptrs;
  std::vector<Tensor> unboxed;
  std::unique_ptr<BoxedEvalueList<Tensor>> list;
  EValue ev;
  explicit TList(std::vector<Tensor> ts) {
    vals.reserve(ts.size());
    for (auto& t : ts) {
      vals.emplace_back(t);
    }
    for (auto& e : vals) {
      ptrs.push_back(&e);
    }
    for (auto& t : ts) {
      unboxed.push_back(t);
    }
    list = std::make_unique<BoxedEvalueList<Tensor>>(ptrs.data(), unboxed.data(),
                                                     static_cast<int>(ts.size()));
    ev = EValue(list.get());
  }
};

struct OptTList {
  std::vector<EValue> vals;
  std::vector<EValue*> ptrs;
  std::vector<std::optional<Tensor>> unboxed;
  std::unique_ptr<BoxedEvalueList<std::optional<Tensor>>> list;
  EValue ev;
  explicit OptTList(std::vector<std::optional<Tensor>> ts) {
    vals.reserve(ts.size());
    for (auto& t : ts) {
      vals.push_back(t.has_value() ? EValue(*t) : EValue());
    }
    for (auto& e : vals) {
      ptrs.push_back(&e);
    }
    unboxed.resize(ts.size(), std::nullopt);
    list = std::make_unique<BoxedEvalueList<std::optional<Tensor>>>(ptrs.data(), unboxed.data(),
                                                                    static_cast<int>(ts.size()));
    ev = EValue(list.get());
  }
};

/* Looks the operator up by name and calls it with args (+ return slot). */
inline Error call_op(const char* name, std::vector<EValue*> args, Error* lookup = nullptr) {
  auto fn = executorch::runtime::get_op_function_from_registry(name);
  if (lookup != nullptr) {
    *lookup = fn.error();
  }
  if (!fn.ok()) {
    return fn.error();
  }
  executorch::runtime::KernelRuntimeContext ctx;
  (*fn)(ctx, executorch::runtime::Span<EValue*>(args.data(), args.size()));
  return ctx.failure_state();
}

}  // namespace kernel_test
