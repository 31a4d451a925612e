/*
 * NamedDataMap: read access to data addressed by string keys (e.g. the
 * weights in a .ptd file that a program refers to by name).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tensor_layout.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

class ET_API NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;

  /* Shape and dtype of the tensor stored under `key`; NotFound if absent. */
  ET_NODISCARD virtual Result<const TensorLayout> get_tensor_layout(
      std::string_view key) const = 0;

  /* The bytes stored under `key` (NotFound if absent). */
  ET_NODISCARD virtual Result<FreeableBuffer> get_data(
      std::string_view key) const = 0;

  /* Copies the bytes under `key` into `buffer` of `size` bytes. */
  ET_NODISCARD virtual Error load_data_into(
      std::string_view key, void* buffer, size_t size) const = 0;

  /* Number of keys. */
  ET_NODISCARD virtual Result<uint32_t> get_num_keys() const = 0;

  /* The key at `index` (InvalidArgument if out of range). */
  ET_NODISCARD virtual Result<const char*> get_key(uint32_t index) const = 0;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
