/*
 * prepare_input_tensors(): allocate, fill and set a Method's inputs.
 */
#include <executorch/extension/runner_util/inputs.h>

#include <cstring>
#include <type_traits>

#include <executorch/extension/tensor/detail/dtype_dispatch.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {

using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::MethodMeta;
using executorch::runtime::Result;
using executorch::runtime::Tag;

namespace internal {

Error fill_and_set_input(
    Method& method,
    TensorInfo& tensor_meta,
    size_t input_index,
    void* data_ptr,
    bool fill_tensor) {
  const auto sizes = tensor_meta.sizes();
  const auto dim_order = tensor_meta.dim_order();
  // The impl only lives for the set_input() call, which copies or shares the
  // data and keeps its own metadata, so pointing at the meta's arrays is safe.
  TensorImpl impl(
      tensor_meta.scalar_type(),
      static_cast<ssize_t>(sizes.size()),
      const_cast<TensorImpl::SizesType*>(sizes.data()),
      data_ptr,
      const_cast<TensorImpl::DimOrderType*>(dim_order.data()));
  Tensor tensor(&impl);
  if (fill_tensor) {
    const size_t numel = static_cast<size_t>(tensor.numel());
    const bool handled =
        detail::visit_dtype(tensor.scalar_type(), [&](auto tag) {
          using T = typename decltype(tag)::type;
          T* data = static_cast<T*>(data_ptr);
          const T one = detail::convert_element<T>(1);
          for (size_t i = 0; i < numel; ++i) {
            data[i] = one;
          }
        });
    if (!handled) {
      ET_LOG(
          Error,
          "Input %zu: cannot fill dtype %s with ones",
          input_index,
          executorch::runtime::toString(tensor.scalar_type()));
      return Error::InvalidArgument;
    }
  }
  return method.set_input(EValue(tensor), input_index);
}

}  // namespace internal

namespace {

// Reads a scalar of type T from a caller buffer of exactly sizeof(T) bytes.
template <typename T>
Error set_scalar_input(
    Method& method,
    size_t index,
    const std::pair<char*, size_t>& buffer,
    const char* type_name) {
  if (buffer.second != sizeof(T) || buffer.first == nullptr) {
    ET_LOG(
        Error,
        "Input %zu: %s input needs %zu bytes, got %zu",
        index,
        type_name,
        sizeof(T),
        buffer.second);
    return Error::InvalidArgument;
  }
  if constexpr (std::is_same_v<T, bool>) {
    // Any non-zero byte is true; never load an invalid bool representation.
    unsigned char byte = 0;
    std::memcpy(&byte, buffer.first, 1);
    return method.set_input(EValue(byte != 0), index);
  } else {
    T value;
    std::memcpy(&value, buffer.first, sizeof(T));
    return method.set_input(EValue(value), index);
  }
}

}  // namespace

Result<BufferCleanup> prepare_input_tensors(
    Method& method,
    PrepareInputTensorsOptions options,
    const std::vector<std::pair<char*, size_t>>& input_buffers) {
  const MethodMeta meta = method.method_meta();
  const size_t num_inputs = meta.num_inputs();
  const bool use_buffers = !input_buffers.empty();
  if (use_buffers && input_buffers.size() != num_inputs) {
    ET_LOG(
        Error,
        "%zu input buffers given for a method with %zu inputs",
        input_buffers.size(),
        num_inputs);
    return Error::InvalidArgument;
  }
  if (num_inputs > options.max_inputs) {
    ET_LOG(
        Error,
        "Method has %zu inputs, more than the limit of %zu",
        num_inputs,
        options.max_inputs);
    return Error::InvalidProgram;
  }

  void** owned = static_cast<void**>(
      std::calloc(num_inputs == 0 ? 1 : num_inputs, sizeof(void*)));
  if (owned == nullptr) {
    ET_LOG(Error, "Cannot allocate the input table (%zu entries)", num_inputs);
    return Error::MemoryAllocationFailed;
  }
  size_t num_owned = 0;
  // Frees everything allocated so far on any early return.
  auto fail = [&](Error err) -> Result<BufferCleanup> {
    BufferCleanup cleanup({owned, num_owned});
    return err;
  };

  size_t total = 0;
  for (size_t i = 0; i < num_inputs; ++i) {
    auto tag = meta.input_tag(i);
    if (!tag.ok()) {
      return fail(tag.error());
    }
    if (tag.get() == Tag::None) {
      const Error err = method.set_input(EValue(), i);
      if (err != Error::Ok) {
        return fail(err);
      }
      continue;
    }
    if (tag.get() != Tag::Tensor) {
      if (!use_buffers) {
        ET_LOG(Debug, "Input %zu is not a tensor; left unchanged", i);
        continue;
      }
      Error err = Error::Ok;
      switch (tag.get()) {
        case Tag::Int:
          err = set_scalar_input<int64_t>(method, i, input_buffers[i], "Int");
          break;
        case Tag::Double:
          err = set_scalar_input<double>(method, i, input_buffers[i], "Double");
          break;
        case Tag::Bool:
          err = set_scalar_input<bool>(method, i, input_buffers[i], "Bool");
          break;
        default:
          ET_LOG(
              Error,
              "Input %zu: tag %u cannot be read from a buffer",
              i,
              static_cast<unsigned>(tag.get()));
          err = Error::InvalidArgument;
          break;
      }
      if (err != Error::Ok) {
        return fail(err);
      }
      continue;
    }

    auto info = meta.input_tensor_meta(i);
    if (!info.ok()) {
      return fail(info.error());
    }
    const size_t nbytes = info->nbytes();
    if (nbytes > options.max_total_allocation_size - total) {
      ET_LOG(
          Error,
          "Input %zu (%zu bytes) would exceed the %zu-byte allocation limit",
          i,
          nbytes,
          options.max_total_allocation_size);
      return fail(Error::InvalidProgram);
    }
    total += nbytes;
    if (use_buffers && input_buffers[i].second != nbytes) {
      ET_LOG(
          Error,
          "Input %zu: buffer holds %zu bytes, tensor needs %zu",
          i,
          input_buffers[i].second,
          nbytes);
      return fail(Error::InvalidArgument);
    }
    void* data = std::malloc(nbytes == 0 ? 1 : nbytes);
    if (data == nullptr) {
      ET_LOG(Error, "Input %zu: malloc(%zu) failed", i, nbytes);
      return fail(Error::MemoryAllocationFailed);
    }
    owned[num_owned++] = data;
    if (use_buffers && nbytes > 0) {
      std::memcpy(data, input_buffers[i].first, nbytes);
    }
    const Error err =
        internal::fill_and_set_input(method, info.get(), i, data, !use_buffers);
    if (err != Error::Ok) {
      ET_LOG(
          Error,
          "Input %zu could not be set: 0x%x",
          i,
          static_cast<unsigned>(err));
      return fail(err);
    }
  }
  return BufferCleanup({owned, num_owned});
}

}  // namespace extension
}  // namespace executorch
