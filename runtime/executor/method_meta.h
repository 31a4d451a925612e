/*
 * MethodMeta and TensorInfo: what a program says about one method (its inputs,
 * outputs, planned memory, backends) without loading it.
 *
 * Both are cheap views into the Program's flatbuffer: they stay valid only as
 * long as the Program they came from.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch_flatbuffer {
struct ExecutionPlan;
}  // namespace executorch_flatbuffer

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace testing {
class TensorInfoTestFriend;
}  // namespace testing

/// Shape, memory order, dtype and size of one serialized tensor.
class ET_API TensorInfo final {
 public:
  TensorInfo() = delete;
  TensorInfo(const TensorInfo&) = default;
  TensorInfo(TensorInfo&&) = default;
  TensorInfo& operator=(const TensorInfo&) = default;
  TensorInfo& operator=(TensorInfo&& other) = default;
  ~TensorInfo() = default;

  /// Sizes as serialized (upper bounds for dynamic tensors).
  Span<const int32_t> sizes() const;
  /// Memory order of the dimensions, outermost first.
  Span<const uint8_t> dim_order() const;
  executorch::aten::ScalarType scalar_type() const;
  /// True when the tensor gets memory at load (planned or constant data).
  bool is_memory_planned() const;
  /// Bytes of the tensor at its serialized sizes.
  size_t nbytes() const;
  /// Fully qualified name (attributes only; empty otherwise).
  std::string_view name() const;

 private:
  friend class MethodMeta;
  friend class testing::TensorInfoTestFriend;

  static Result<TensorInfo> create(
      Span<const int32_t> sizes,
      Span<const uint8_t> dim_order,
      executorch::aten::ScalarType scalar_type,
      const bool is_memory_planned,
      std::string_view name);

  TensorInfo(
      Span<const int32_t> sizes,
      Span<const uint8_t> dim_order,
      executorch::aten::ScalarType scalar_type,
      const bool is_memory_planned,
      std::string_view name,
      size_t nbytes);

  Span<const int32_t> sizes_;
  Span<const uint8_t> dim_order_;
  std::string_view name_;
  executorch::aten::ScalarType scalar_type_;
  bool is_memory_planned_;
  size_t nbytes_;
};

/// Everything the program declares about one method.
class ET_API MethodMeta final {
 public:
  MethodMeta() = delete;
  MethodMeta(const MethodMeta&) = default;
  MethodMeta(MethodMeta&&) = default;
  MethodMeta& operator=(const MethodMeta&) = default;
  MethodMeta& operator=(MethodMeta&& other) = default;
  ~MethodMeta() = default;

  const char* name() const;

  size_t num_inputs() const;
  Result<Tag> input_tag(size_t index) const;
  Result<TensorInfo> input_tensor_meta(size_t index) const;

  size_t num_outputs() const;
  Result<Tag> output_tag(size_t index) const;
  Result<TensorInfo> output_tensor_meta(size_t index) const;

  /// Tensors of the method that carry a fully qualified name.
  size_t num_attributes() const;
  Result<TensorInfo> attribute_tensor_meta(size_t index) const;

  /// Planned arenas the caller must provide (the reserved entry 0 hidden).
  size_t num_memory_planned_buffers() const;
  Result<int64_t> memory_planned_buffer_size(size_t index) const;
  Result<etensor::Device> memory_planned_buffer_device(size_t index) const;

  bool uses_backend(const char* backend_name) const;
  size_t num_backends() const;
  Result<const char*> get_backend_name(size_t index) const;

  /// Instructions summed over all chains.
  ET_EXPERIMENTAL size_t num_instructions() const;

  ET_DEPRECATED size_t num_non_const_buffers() const {
    return num_memory_planned_buffers();
  }
  Result<int64_t> non_const_buffer_size(size_t index) const {
    return memory_planned_buffer_size(index);
  }

 private:
  friend class Program;
  friend class Method;

  explicit MethodMeta(const executorch_flatbuffer::ExecutionPlan* s_plan);

  const executorch_flatbuffer::ExecutionPlan* s_plan_;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::MethodMeta;
using ::executorch::ET_RUNTIME_NAMESPACE::TensorInfo;
}  // namespace executor
}  // namespace torch
