/*
 * TensorLayout: the shape, dim order and dtype of a tensor stored outside a
 * program (named data), without the data itself.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

class ET_API TensorLayout final {
 public:
  TensorLayout() = delete;

  /*
   * Validates and builds a layout. The spans are referenced, not copied, so
   * they must outlive it. InvalidArgument if the ranks differ, dim_order is
   * not a permutation, a size is negative, the dtype is invalid or nbytes
   * overflows.
   */
  static Result<const TensorLayout> create(
      Span<const int32_t> sizes,
      Span<const uint8_t> dim_order,
      executorch::aten::ScalarType scalar_type);

  Span<const int32_t> sizes() const {
    return sizes_;
  }
  Span<const uint8_t> dim_order() const {
    return dim_order_;
  }
  executorch::aten::ScalarType scalar_type() const {
    return scalar_type_;
  }
  size_t nbytes() const {
    return nbytes_;
  }

 private:
  TensorLayout(
      Span<const int32_t> sizes,
      Span<const uint8_t> dim_order,
      executorch::aten::ScalarType scalar_type,
      size_t nbytes)
      : sizes_(sizes),
        dim_order_(dim_order),
        scalar_type_(scalar_type),
        nbytes_(nbytes) {}

  Span<const int32_t> sizes_;
  Span<const uint8_t> dim_order_;
  executorch::aten::ScalarType scalar_type_;
  size_t nbytes_;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
