/*
 * The KV-cache write shared by llama::update_cache(.out,
 * _with_indices.out) and llama::sdpa_with_kv_cache.out (upstream ExecuTorch's
 * extension/llm/custom_ops): a cache is [batch, max_seq_len, heads, head_dim],
 * a value [batch, seq_len, heads, head_dim], both contiguous, and the value's
 * rows land at sequence positions start_pos.. of the cache (or at the
 * positions an indices tensor [batch, seq_len] gives).
 *
 * Upstream aborts, or writes past the cache, on a start_pos or shape that
 * does not fit; here every position is checked before a byte is written and
 * a misfit is a typed InvalidArgument error.
 */
#pragma once

#include <cstdint>

#include <executorch/runtime/kernels/detail/kernel_util.h>

namespace executorch {
namespace kernels {
namespace detail {

/*
 * The value fits the cache: both rank 4 and contiguous, same batch, heads,
 * head dim and element size.
 */
bool check_cache_value(KernelRuntimeContext& ctx, const char* op, const char* value_arg,
                       const Tensor& value, const char* cache_arg, const Tensor& cache);

/*
 * start_pos is a position of the cache (0 <= start_pos < max_seq_len, as
 * upstream requires even for an empty write) and start_pos + seq_len rows fit.
 */
bool check_cache_window(KernelRuntimeContext& ctx, const char* op, const char* cache_arg,
                        const Tensor& cache, int64_t start_pos, int64_t seq_len);

/* Copies the value's rows to positions start_pos.. (checked before). */
void write_cache(const Tensor& value, const Tensor& cache, int64_t start_pos);

/*
 * indices is Long [batch, seq_len] contiguous and every entry a position of
 * the cache.
 */
bool check_cache_indices(KernelRuntimeContext& ctx, const char* op, const Tensor& value,
                         const Tensor& cache, const Tensor& indices);

/* Copies value row (b, s) to position indices[b][s] (checked before). */
void write_cache_at(const Tensor& value, const Tensor& cache, const Tensor& indices);

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
