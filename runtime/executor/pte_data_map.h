/*
 * The NamedDataMap over a program's own `named_data` table (key -> segment).
 *
 * Built by Program::load when the program lists named data; handed to
 * delegates (merged with any external map). Blobs are whole segments and are
 * loaded through the program's DataLoader on each lookup. No tensor layouts,
 * no load-into: those report NotImplemented.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch_flatbuffer {
struct Program;
}  // namespace executorch_flatbuffer

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace internal {

class ET_API PteDataMap final : public NamedDataMap {
 public:
  /**
   * Creates the map. `program` must be a verified flatbuffer root whose
   * named_data entries were already checked against its segment table (see
   * Program::load); `segment_base_offset` is the absolute file offset of the
   * segment area (0 when the file has no extended header).
   */
  static Result<PteDataMap> create(
      DataLoader* loader,
      size_t segment_base_offset,
      const executorch_flatbuffer::Program* program);

  ET_NODISCARD Result<const TensorLayout> get_tensor_layout(
      std::string_view key) const override;
  ET_NODISCARD Result<FreeableBuffer> get_data(
      std::string_view key) const override;
  ET_NODISCARD Error load_data_into(
      std::string_view key, void* buffer, size_t size) const override;
  ET_NODISCARD Result<uint32_t> get_num_keys() const override;
  ET_NODISCARD Result<const char*> get_key(uint32_t index) const override;

  PteDataMap(PteDataMap&&) noexcept = default;
  ~PteDataMap() override;

 private:
  PteDataMap(
      DataLoader* loader,
      size_t segment_base_offset,
      const executorch_flatbuffer::Program* program)
      : loader_(loader),
        segment_base_offset_(segment_base_offset),
        program_(program) {}

  PteDataMap(const PteDataMap&) = delete;
  PteDataMap& operator=(const PteDataMap&) = delete;
  PteDataMap& operator=(PteDataMap&&) = delete;

  DataLoader* loader_;
  size_t segment_base_offset_;
  const executorch_flatbuffer::Program* program_;
};

}  // namespace internal
}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
