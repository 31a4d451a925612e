/*
 * llama::custom_sdpa.out and llama::sdpa_with_kv_cache.out, the attention
 * upstream ExecuTorch's LLM export emits (extension/llm/custom_ops/
 * op_sdpa.cpp), with its semantics:
 *   - q [batch, q_len, heads, head_dim], k and v [batch, kv_len, kv_heads,
 *     head_dim] (sequence at dim 1), Float, Half or BFloat16, contiguous;
 *     out has q's shape and dtype;
 *   - grouped-query attention: query head h reads kv head h / (heads /
 *     kv_heads);
 *   - query row m sits at absolute position start_pos + m. Without a mask
 *     only the first start_pos + q_len keys exist; is_causal lets row m see
 *     keys 0..start_pos + m. A mask (Float [q_len, kv_len], not with
 *     is_causal) is added to the scaled scores over all kv_len keys;
 *   - scale defaults to 1/sqrt(head_dim); dropout_p is ignored (inference),
 *     as upstream;
 *   - a row with no visible key is NaN, as upstream.
 * sdpa_with_kv_cache first writes k and v into the caches at start_pos
 * (detail/kv_cache.h), then attends over the caches. Every argument is
 * checked before the caches or out are written.
 */
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include <executorch/runtime/kernels/detail/dtype_util.h>
#include <executorch/runtime/kernels/detail/kv_cache.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

ET_DEFINE_OPERATOR_NAME(custom_sdpa_out_name, "llama::custom_sdpa.out");
ET_DEFINE_OPERATOR_NAME(sdpa_with_kv_cache_out_name, "llama::sdpa_with_kv_cache.out");

constexpr DtypeSet kAttentionDtypes =
    dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Half) | dtype_bit(ScalarType::BFloat16);

/* Checks q, k, v, mask and out for custom_sdpa; *keys is the number of keys attended. */
bool check_sdpa_args(KernelRuntimeContext& ctx, const char* op, const Tensor& q, const Tensor& k,
                     const Tensor& v, int64_t start_pos, const std::optional<Tensor>& mask,
                     bool is_causal, const Tensor& out, int64_t* keys) {
  ET_KERNEL_CHECK_MSG(ctx, !mask.has_value() || !is_causal, InvalidArgument, false,
                      "%s: attn_mask and is_causal cannot both be set", op);
  if (!check_rank(ctx, op, "query", q, 4) || !check_rank(ctx, op, "key", k, 4) ||
      !check_rank(ctx, op, "value", v, 4) ||
      !check_dtype_in(ctx, op, "query", q, kAttentionDtypes) ||
      !check_same_dtype(ctx, op, "query", q, "key", k) ||
      !check_same_dtype(ctx, op, "query", q, "value", v) ||
      !check_same_dtype(ctx, op, "query", q, "out", out) ||
      !check_contiguous(ctx, op, "query", q) || !check_contiguous(ctx, op, "key", k) ||
      !check_contiguous(ctx, op, "value", v) || !check_contiguous(ctx, op, "out", out)) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(ctx, k.sizes() == v.sizes(), InvalidArgument, false,
                      "%s: key and value must have the same shape", op);
  ET_KERNEL_CHECK_MSG(ctx, q.size(0) == k.size(0) && q.size(3) == k.size(3), InvalidArgument, false,
                      "%s: query and key/value differ in batch or head_dim", op);
  const int64_t heads = q.size(2), kv_heads = k.size(2);
  ET_KERNEL_CHECK_MSG(ctx, kv_heads > 0 ? heads % kv_heads == 0 : heads == 0, InvalidArgument,
                      false, "%s: %lld query heads are not a multiple of %lld kv heads", op,
                      static_cast<long long>(heads), static_cast<long long>(kv_heads));
  ET_KERNEL_CHECK_MSG(ctx, start_pos >= 0, InvalidArgument, false, "%s: start_pos %lld is negative",
                      op, static_cast<long long>(start_pos));
  const int64_t q_len = q.size(1), kv_len = k.size(1);
  if (mask.has_value()) {
    const Tensor& m = *mask;
    if (!check_rank(ctx, op, "attn_mask", m, 2) ||
        !check_dtype(ctx, op, "attn_mask", m, ScalarType::Float) ||
        !check_contiguous(ctx, op, "attn_mask", m)) {
      return false;
    }
    ET_KERNEL_CHECK_MSG(ctx, m.size(0) == q_len && m.size(1) == kv_len, InvalidArgument, false,
                        "%s: attn_mask [%zd, %zd] must be [q_len, kv_len] = [%lld, %lld]", op,
                        static_cast<ssize_t>(m.size(0)), static_cast<ssize_t>(m.size(1)),
                        static_cast<long long>(q_len), static_cast<long long>(kv_len));
    *keys = kv_len;
  } else {
    // The keys that exist so far: positions 0 .. start_pos + q_len - 1.
    ET_KERNEL_CHECK_MSG(ctx, checked_add(start_pos, q_len, keys) && *keys <= kv_len,
                        InvalidArgument, false,
                        "%s: start_pos %lld + q_len %lld exceeds the %lld keys", op,
                        static_cast<long long>(start_pos), static_cast<long long>(q_len),
                        static_cast<long long>(kv_len));
  }
  return resize_out_like(ctx, op, out, q);
}

/*
 * One attention row at a time in float. Reduced-precision probabilities are
 * rounded to T before they weight v, as upstream's kernel does.
 */
template <class T>
void attention(const Tensor& q, const Tensor& k, const Tensor& v, int64_t start_pos,
               const std::optional<Tensor>& mask, bool is_causal, float scale, int64_t keys,
               Tensor& out) {
  using Acc = float;
  const int64_t batch = q.size(0), q_len = q.size(1), heads = q.size(2), dim = q.size(3);
  const int64_t kv_len = k.size(1), kv_heads = k.size(2);
  const int64_t group = heads / kv_heads;
  const T* qd = q.const_data_ptr<T>();
  const T* kd = k.const_data_ptr<T>();
  const T* vd = v.const_data_ptr<T>();
  const float* md = mask.has_value() ? mask->const_data_ptr<float>() : nullptr;
  T* od = out.mutable_data_ptr<T>();
  constexpr Acc kNegInf = -std::numeric_limits<Acc>::infinity();
  std::vector<Acc> score(static_cast<size_t>(keys));
  std::vector<Acc> acc(static_cast<size_t>(dim));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t hk = h / group;
      for (int64_t m = 0; m < q_len; ++m) {
        const T* qrow = qd + ((b * q_len + m) * heads + h) * dim;
        const int64_t visible = is_causal ? std::min(keys, start_pos + m + 1) : keys;
        Acc max = kNegInf;
        for (int64_t n = 0; n < visible; ++n) {
          const T* krow = kd + ((b * kv_len + n) * kv_heads + hk) * dim;
          Acc dot = 0;
          for (int64_t d = 0; d < dim; ++d) {
            dot += static_cast<Acc>(qrow[d]) * static_cast<Acc>(krow[d]);
          }
          Acc s = dot * scale;
          if (md != nullptr) {
            s += md[m * kv_len + n];
          }
          score[n] = s;
          max = s > max ? s : max;
        }
        Acc sum = 0;
        std::fill(acc.begin(), acc.end(), Acc(0));
        if (max != kNegInf) {
          for (int64_t n = 0; n < visible; ++n) {
            Acc p = std::exp(score[n] - max);
            sum += p;
            if constexpr (!std::is_same<T, float>::value) {
              p = static_cast<Acc>(static_cast<T>(p));
            }
            const T* vrow = vd + ((b * kv_len + n) * kv_heads + hk) * dim;
            for (int64_t d = 0; d < dim; ++d) {
              acc[d] += p * static_cast<Acc>(vrow[d]);
            }
          }
        }
        const Acc inv = Acc(1) / sum;
        T* orow = od + ((b * q_len + m) * heads + h) * dim;
        for (int64_t d = 0; d < dim; ++d) {
          orow[d] = static_cast<T>(acc[d] * inv);
        }
      }
    }
  }
}

/* Runs the attention on checked arguments. */
void run_sdpa(KernelRuntimeContext& ctx, const char* op, const Tensor& q, const Tensor& k,
              const Tensor& v, int64_t start_pos, const std::optional<Tensor>& mask, bool is_causal,
              std::optional<double> scale, int64_t keys, Tensor& out) {
  const float s = static_cast<float>(
      scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(3))));
  dispatch_dtype<kAttentionDtypes>(ctx, op, q.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    attention<T>(q, k, v, start_pos, mask, is_causal, s, keys, out);
  });
}

Tensor& custom_sdpa_out(KernelRuntimeContext& ctx, const Tensor& q, const Tensor& k,
                        const Tensor& v, int64_t start_pos, const std::optional<Tensor>& attn_mask,
                        double dropout_p, bool is_causal, std::optional<double> scale,
                        Tensor& out) {
  (void)dropout_p;
  const char* op = log_name(custom_sdpa_out_name);
  int64_t keys = 0;
  if (check_sdpa_args(ctx, op, q, k, v, start_pos, attn_mask, is_causal, out, &keys)) {
    run_sdpa(ctx, op, q, k, v, start_pos, attn_mask, is_causal, scale, keys, out);
  }
  return out;
}

Tensor& sdpa_with_kv_cache_out(KernelRuntimeContext& ctx, const Tensor& q, const Tensor& k,
                               const Tensor& v, Tensor& key_cache, Tensor& value_cache,
                               int64_t start_pos, int64_t seq_len,
                               const std::optional<Tensor>& attn_mask, double dropout_p,
                               bool is_causal, std::optional<double> scale, Tensor& out) {
  (void)dropout_p;
  const char* op = log_name(sdpa_with_kv_cache_out_name);
  int64_t keys = 0;
  // seq_len is what upstream checks the window with; the rows written are
  // k's and v's, so their length must fit too.
  if (!check_cache_value(ctx, op, "key", k, "key_cache", key_cache) ||
      !check_cache_value(ctx, op, "value", v, "value_cache", value_cache) ||
      !check_cache_window(ctx, op, "key_cache", key_cache, start_pos, seq_len) ||
      !check_cache_window(ctx, op, "value_cache", value_cache, start_pos, seq_len) ||
      !check_cache_window(ctx, op, "key_cache", key_cache, start_pos, k.size(1)) ||
      !check_cache_window(ctx, op, "value_cache", value_cache, start_pos, v.size(1)) ||
      !check_same_dtype(ctx, op, "key", k, "key_cache", key_cache) ||
      !check_same_dtype(ctx, op, "value", v, "value_cache", value_cache) ||
      !check_sdpa_args(ctx, op, q, key_cache, value_cache, start_pos, attn_mask, is_causal, out,
                       &keys)) {
    return out;
  }
  write_cache(k, key_cache, start_pos);
  write_cache(v, value_cache, start_pos);
  run_sdpa(ctx, op, q, key_cache, value_cache, start_pos, attn_mask, is_causal, scale, keys, out);
  return out;
}

}  // namespace

ETK_REGISTER_KERNEL(custom_sdpa_out_name, custom_sdpa_out);
ETK_REGISTER_KERNEL(sdpa_with_kv_cache_out_name, sdpa_with_kv_cache_out);

}  // namespace kernels
}  // namespace executorch
