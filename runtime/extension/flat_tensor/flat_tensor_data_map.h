/*
 * FlatTensorDataMap: the NamedDataMap over a .ptd file (external tensor data
 * written next to a .pte). The flatbuffer part is loaded and verified once;
 * blobs are loaded from the file on demand.
 *
 * The DataLoader must outlive the map.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include <executorch/extension/flat_tensor/serialize/flat_tensor_header.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tensor_layout.h>
#include <executorch/runtime/platform/compiler.h>

namespace flat_tensor_flatbuffer {
struct FlatTensor;
}  // namespace flat_tensor_flatbuffer

namespace executorch {
namespace extension {

class ET_API FlatTensorDataMap final
    : public executorch::ET_RUNTIME_NAMESPACE::NamedDataMap {
 public:
  /**
   * Loads and checks the .ptd behind `loader` (header, file size, alignment,
   * identifier "FT01", flatbuffers Verifier, every entry's key, segment and
   * layout).
   *
   * @retval Error::InvalidExternalData malformed file (the log names the
   *     field).
   */
  static executorch::runtime::Result<FlatTensorDataMap> load(
      executorch::runtime::DataLoader* loader);

  ET_NODISCARD
  executorch::runtime::Result<
      const executorch::ET_RUNTIME_NAMESPACE::TensorLayout>
  get_tensor_layout(std::string_view key) const override;

  ET_NODISCARD
  executorch::runtime::Result<executorch::runtime::FreeableBuffer> get_data(
      std::string_view key) const override;

  /// Copies the tensor `key` into `buffer` (`size` must cover its nbytes).
  ET_NODISCARD executorch::runtime::Error load_data_into(
      std::string_view key, void* buffer, size_t size) const override;

  ET_NODISCARD executorch::runtime::Result<uint32_t> get_num_keys()
      const override;

  ET_NODISCARD executorch::runtime::Result<const char*> get_key(
      uint32_t index) const override;

  FlatTensorDataMap(FlatTensorDataMap&&) noexcept = default;
  ~FlatTensorDataMap() override;

 private:
  FlatTensorDataMap(
      const FlatTensorHeader& header,
      executorch::runtime::FreeableBuffer&& flat_tensor_data,
      const flat_tensor_flatbuffer::FlatTensor* flat_tensor,
      executorch::runtime::DataLoader* loader)
      : header_(header),
        flat_tensor_data_(std::move(flat_tensor_data)),
        flat_tensor_(flat_tensor),
        loader_(loader) {}

  FlatTensorDataMap(const FlatTensorDataMap&) = delete;
  FlatTensorDataMap& operator=(FlatTensorDataMap&&) noexcept = delete;
  FlatTensorDataMap& operator=(const FlatTensorDataMap&) = delete;

  FlatTensorHeader header_;
  executorch::runtime::FreeableBuffer flat_tensor_data_;
  const flat_tensor_flatbuffer::FlatTensor* flat_tensor_;
  executorch::runtime::DataLoader* loader_;
};

}  // namespace extension
}  // namespace executorch
