/*
 * Out-of-line tensor helpers: dim-order queries, data pointer plumbing and
 * the resize entry point.
 */
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>

#include <cstring>

namespace executorch {
namespace runtime {

using executorch::aten::Tensor;

Error get_dim_order(
    const Tensor& tensor,
    executorch::aten::DimOrderType* out_dim_order,
    size_t out_dim_order_size) {
  ET_CHECK_OR_RETURN_ERROR(
      out_dim_order_size == static_cast<size_t>(tensor.dim()),
      InvalidArgument,
      "Dim order buffer holds %zu, tensor has rank %zd",
      out_dim_order_size,
      tensor.dim());
  const auto order = tensor.dim_order();
  for (size_t i = 0; i < out_dim_order_size; ++i) {
    out_dim_order[i] = order[i];
  }
  return Error::Ok;
}

bool tensor_has_valid_dim_order(Tensor t) {
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      validate_dim_order(t.dim_order().data(), t.dim_order().size()),
      "Invalid dim order");
  return true;
}

bool tensor_is_default_or_channels_last_dim_order(Tensor t) {
  const auto order = t.dim_order();
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      is_contiguous_dim_order(order.data(), order.size()) ||
          is_channels_last_dim_order(order.data(), order.size()),
      "Expected default or channels-last dim order");
  return true;
}

bool tensor_is_default_dim_order(Tensor t) {
  const auto order = t.dim_order();
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      is_contiguous_dim_order(order.data(), order.size()),
      "Expected default dim order");
  return true;
}

bool tensor_is_channels_last_dim_order(Tensor t) {
  const auto order = t.dim_order();
  ET_LOG_MSG_AND_RETURN_IF_FALSE(
      is_channels_last_dim_order(order.data(), order.size()),
      "Expected channels-last dim order");
  return true;
}

bool tensors_have_same_dim_order(
    const executorch::aten::ArrayRef<Tensor> tensor_list) {
  if (tensor_list.size() < 2) {
    return true;
  }
  // Rank 0/1 tensors, and tensors of different ranks, are compared by their
  // default/channels-last class rather than element-wise.
  bool all_default = true;
  bool all_channels_last = true;
  for (const Tensor& t : tensor_list) {
    const auto order = t.dim_order();
    all_default =
        all_default && is_contiguous_dim_order(order.data(), order.size());
    all_channels_last = all_channels_last &&
                        is_channels_last_dim_order(order.data(), order.size());
  }
  if (all_default || all_channels_last) {
    return true;
  }
  const auto first = tensor_list[0].dim_order();
  for (size_t i = 1; i < tensor_list.size(); ++i) {
    ET_LOG_MSG_AND_RETURN_IF_FALSE(
        tensor_list[i].dim_order().equals(first),
        "Tensor %zu has a different dim order",
        i);
  }
  return true;
}

namespace internal {

Error share_tensor_data(const Tensor& t_dst, const Tensor& t_src) {
  ET_CHECK_OR_RETURN_ERROR(
      t_dst.nbytes() == t_src.nbytes(),
      InvalidArgument,
      "Byte sizes differ: dst %zu, src %zu",
      t_dst.nbytes(),
      t_src.nbytes());
  ET_CHECK_OR_RETURN_ERROR(
      t_src.const_data_ptr() != nullptr || t_src.nbytes() == 0,
      InvalidArgument,
      "Source tensor has no data");
  t_dst.unsafeGetTensorImpl()->set_data(t_src.mutable_data_ptr());
  return Error::Ok;
}

Error copy_tensor_data(const Tensor& t_dst, const Tensor& t_src) {
  ET_CHECK_OR_RETURN_ERROR(
      t_dst.nbytes() == t_src.nbytes(),
      InvalidArgument,
      "Byte sizes differ: dst %zu, src %zu",
      t_dst.nbytes(),
      t_src.nbytes());
  if (t_src.nbytes() == 0) {
    return Error::Ok;
  }
  ET_CHECK_OR_RETURN_ERROR(
      t_dst.const_data_ptr() != nullptr && t_src.const_data_ptr() != nullptr,
      InvalidArgument,
      "Null data pointer");
  std::memcpy(t_dst.mutable_data_ptr(), t_src.const_data_ptr(), t_src.nbytes());
  return Error::Ok;
}

Error set_tensor_data(const Tensor& t, void* buffer, size_t buffer_size) {
  ET_CHECK_OR_RETURN_ERROR(
      buffer_size >= t.nbytes(),
      InvalidArgument,
      "Buffer of %zu bytes is smaller than the tensor's %zu",
      buffer_size,
      t.nbytes());
  t.unsafeGetTensorImpl()->set_data(buffer);
  return Error::Ok;
}

void reset_data_ptr(const Tensor& tensor) {
  tensor.unsafeGetTensorImpl()->set_data(nullptr);
}

Error resize_tensor_impl(
    executorch::aten::TensorImpl* impl,
    executorch::aten::ArrayRef<executorch::aten::SizesType> new_sizes) {
  ET_CHECK_OR_RETURN_ERROR(impl != nullptr, InvalidArgument, "Null tensor");
  return impl->internal_resize_contiguous(new_sizes);
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
