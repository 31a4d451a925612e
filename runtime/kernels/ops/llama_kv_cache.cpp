/*
 * llama::update_cache.out and llama::update_cache_with_indices.out, the KV
 * cache writes upstream ExecuTorch's LLM export emits
 * (extension/llm/custom_ops/op_update_cache.cpp): the value's rows are
 * copied into the cache (mutated in place) at start_pos.., or at the
 * positions of `indices`. The out is the schema's return placeholder and is
 * left untouched, as upstream does. Layout and checks: detail/kv_cache.h.
 */
#include <executorch/runtime/kernels/detail/kv_cache.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

ET_DEFINE_OPERATOR_NAME(update_cache_out_name, "llama::update_cache.out");
ET_DEFINE_OPERATOR_NAME(update_cache_with_indices_out_name, "llama::update_cache_with_indices.out");

Tensor& update_cache_out(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache,
                         int64_t start_pos, Tensor& out) {
  const char* op = log_name(update_cache_out_name);
  if (!check_cache_value(ctx, op, "value", value, "cache", cache) ||
      !check_cache_window(ctx, op, "cache", cache, start_pos, value.size(1))) {
    return out;
  }
  write_cache(value, cache, start_pos);
  return out;
}

Tensor& update_cache_with_indices_out(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache,
                                      int64_t start_pos, const Tensor& indices, Tensor& out) {
  (void)start_pos;  // the indices give every position (upstream ignores it too)
  const char* op = log_name(update_cache_with_indices_out_name);
  if (!check_cache_value(ctx, op, "value", value, "cache", cache) ||
      !check_cache_indices(ctx, op, value, cache, indices)) {
    return out;
  }
  write_cache_at(value, cache, indices);
  return out;
}

}  // namespace

ETK_REGISTER_KERNEL(update_cache_out_name, update_cache_out);
ETK_REGISTER_KERNEL(update_cache_with_indices_out_name, update_cache_with_indices_out);

}  // namespace kernels
}  // namespace executorch
