#include <executorch/runtime/kernels/detail/kv_cache.h>

#include <cstring>

namespace executorch {
namespace kernels {
namespace detail {

bool check_cache_value(KernelRuntimeContext& ctx, const char* op, const char* value_arg,
                       const Tensor& value, const char* cache_arg, const Tensor& cache) {
  if (!check_rank(ctx, op, value_arg, value, 4) || !check_rank(ctx, op, cache_arg, cache, 4) ||
      !check_contiguous(ctx, op, value_arg, value) ||
      !check_contiguous(ctx, op, cache_arg, cache)) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(ctx,
                      value.size(0) == cache.size(0) && value.size(2) == cache.size(2) &&
                          value.size(3) == cache.size(3),
                      InvalidArgument, false,
                      "%s: '%s' [%zd, %zd, %zd, %zd] does not match the batch, heads and head dim "
                      "of '%s' [%zd, %zd, %zd, %zd]",
                      op, value_arg, static_cast<ssize_t>(value.size(0)),
                      static_cast<ssize_t>(value.size(1)), static_cast<ssize_t>(value.size(2)),
                      static_cast<ssize_t>(value.size(3)), cache_arg,
                      static_cast<ssize_t>(cache.size(0)), static_cast<ssize_t>(cache.size(1)),
                      static_cast<ssize_t>(cache.size(2)), static_cast<ssize_t>(cache.size(3)));
  ET_KERNEL_CHECK_MSG(ctx, value.element_size() == cache.element_size(), InvalidArgument, false,
                      "%s: '%s' (%s) and '%s' (%s) have different element sizes", op, value_arg,
                      dtype_name(value.scalar_type()), cache_arg, dtype_name(cache.scalar_type()));
  return true;
}

bool check_cache_window(KernelRuntimeContext& ctx, const char* op, const char* cache_arg,
                        const Tensor& cache, int64_t start_pos, int64_t seq_len) {
  const int64_t max_seq_len = cache.size(1);
  int64_t end = 0;
  ET_KERNEL_CHECK_MSG(ctx, start_pos >= 0 && start_pos < max_seq_len, InvalidArgument, false,
                      "%s: start_pos %lld is not a position of '%s' (max_seq_len %lld)", op,
                      static_cast<long long>(start_pos), cache_arg,
                      static_cast<long long>(max_seq_len));
  ET_KERNEL_CHECK_MSG(
      ctx, seq_len >= 0 && checked_add(start_pos, seq_len, &end) && end <= max_seq_len,
      InvalidArgument, false, "%s: start_pos %lld + seq_len %lld exceeds max_seq_len %lld of '%s'",
      op, static_cast<long long>(start_pos), static_cast<long long>(seq_len),
      static_cast<long long>(max_seq_len), cache_arg);
  return true;
}

void write_cache(const Tensor& value, const Tensor& cache, int64_t start_pos) {
  const size_t row = static_cast<size_t>(value.size(2)) * static_cast<size_t>(value.size(3)) *
                     value.element_size();
  const size_t value_batch = row * static_cast<size_t>(value.size(1));
  const size_t cache_batch = row * static_cast<size_t>(cache.size(1));
  const char* src = static_cast<const char*>(value.const_data_ptr());
  char* dst = static_cast<char*>(cache.mutable_data_ptr());
  if (value_batch == 0) {
    return;
  }
  for (ssize_t b = 0; b < value.size(0); ++b) {
    std::memmove(dst + b * cache_batch + static_cast<size_t>(start_pos) * row,
                 src + b * value_batch, value_batch);
  }
}

bool check_cache_indices(KernelRuntimeContext& ctx, const char* op, const Tensor& value,
                         const Tensor& cache, const Tensor& indices) {
  if (!check_rank(ctx, op, "indices", indices, 2) ||
      !check_dtype(ctx, op, "indices", indices, ScalarType::Long) ||
      !check_contiguous(ctx, op, "indices", indices)) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(ctx, indices.size(0) == value.size(0) && indices.size(1) == value.size(1),
                      InvalidArgument, false,
                      "%s: indices [%zd, %zd] must be the value's [batch, seq_len] [%zd, %zd]", op,
                      static_cast<ssize_t>(indices.size(0)), static_cast<ssize_t>(indices.size(1)),
                      static_cast<ssize_t>(value.size(0)), static_cast<ssize_t>(value.size(1)));
  const int64_t* idx = indices.const_data_ptr<int64_t>();
  for (ssize_t i = 0; i < indices.numel(); ++i) {
    ET_KERNEL_CHECK_MSG(ctx, idx[i] >= 0 && idx[i] < cache.size(1), InvalidArgument, false,
                        "%s: indices[%zd] = %lld is not a position of the cache (max_seq_len %zd)",
                        op, static_cast<ssize_t>(i), static_cast<long long>(idx[i]),
                        static_cast<ssize_t>(cache.size(1)));
  }
  return true;
}

void write_cache_at(const Tensor& value, const Tensor& cache, const Tensor& indices) {
  const size_t row = static_cast<size_t>(value.size(2)) * static_cast<size_t>(value.size(3)) *
                     value.element_size();
  const char* src = static_cast<const char*>(value.const_data_ptr());
  char* dst = static_cast<char*>(cache.mutable_data_ptr());
  const int64_t* idx = indices.const_data_ptr<int64_t>();
  if (row == 0) {
    return;
  }
  for (ssize_t b = 0; b < value.size(0); ++b) {
    for (ssize_t s = 0; s < value.size(1); ++s) {
      const int64_t pos = idx[b * value.size(1) + s];
      std::memmove(dst + (static_cast<size_t>(b) * cache.size(1) + pos) * row,
                   src + (static_cast<size_t>(b) * value.size(1) + s) * row, row);
    }
  }
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
