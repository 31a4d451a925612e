#include <executorch/runtime/core/tensor_layout.h>

#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

Result<const TensorLayout> TensorLayout::create(
    Span<const int32_t> sizes,
    Span<const uint8_t> dim_order,
    executorch::aten::ScalarType scalar_type) {
  ET_CHECK_OR_RETURN_ERROR(
      isValid(scalar_type),
      InvalidArgument,
      "Invalid dtype %d",
      static_cast<int>(scalar_type));
  ET_CHECK_OR_RETURN_ERROR(
      sizes.size() == dim_order.size(),
      InvalidArgument,
      "sizes has %zu entries, dim_order %zu",
      sizes.size(),
      dim_order.size());
  ET_CHECK_OR_RETURN_ERROR(
      validate_dim_order(dim_order.data(), dim_order.size()),
      InvalidArgument,
      "dim_order is not a permutation of 0..%zu",
      dim_order.size());
  size_t nbytes = elementSize(scalar_type);
  for (size_t i = 0; i < sizes.size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(
        sizes[i] >= 0, InvalidArgument, "Negative size at dim %zu", i);
    ET_CHECK_OR_RETURN_ERROR(
        !__builtin_mul_overflow(nbytes, static_cast<size_t>(sizes[i]), &nbytes),
        InvalidArgument,
        "Byte size overflows at dim %zu",
        i);
  }
  return TensorLayout(sizes, dim_order, scalar_type, nbytes);
}

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
