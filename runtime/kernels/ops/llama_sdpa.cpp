/*
 * llama::custom_sdpa.out, sdpa_with_kv_cache.out and
 * custom_quantized_sdpa.out, the attention
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
 * (detail/kv_cache.h), then attends over the caches; custom_quantized_sdpa
 * attends over int8 q, k and v quantized per token and head (below). Every
 * argument is checked before the caches or out are written.
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
ET_DEFINE_OPERATOR_NAME(custom_quantized_sdpa_out_name, "llama::custom_quantized_sdpa.out");

constexpr DtypeSet kAttentionDtypes =
    dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Half) | dtype_bit(ScalarType::BFloat16);

/* Checks q, k, v, mask and out for custom_sdpa; *keys is the number of keys attended. */
bool check_sdpa_args(KernelRuntimeContext& ctx, const char* op, const Tensor& q, const Tensor& k,
                     const Tensor& v, int64_t start_pos, const std::optional<Tensor>& mask,
                     bool is_causal, const Tensor& out, int64_t* keys,
                     DtypeSet dtypes = kAttentionDtypes, bool seq_at_dim_2 = false) {
  const int seq_dim = seq_at_dim_2 ? 2 : 1, head_dim = seq_at_dim_2 ? 1 : 2;
  ET_KERNEL_CHECK_MSG(ctx, !mask.has_value() || !is_causal, InvalidArgument, false,
                      "%s: attn_mask and is_causal cannot both be set", op);
  if (!check_rank(ctx, op, "query", q, 4) || !check_rank(ctx, op, "key", k, 4) ||
      !check_rank(ctx, op, "value", v, 4) || !check_dtype_in(ctx, op, "query", q, dtypes) ||
      !check_same_dtype(ctx, op, "query", q, "key", k) ||
      !check_same_dtype(ctx, op, "query", q, "value", v) ||
      !check_contiguous(ctx, op, "query", q) || !check_contiguous(ctx, op, "key", k) ||
      !check_contiguous(ctx, op, "value", v) || !check_contiguous(ctx, op, "out", out)) {
    return false;
  }
  ET_KERNEL_CHECK_MSG(ctx, k.sizes() == v.sizes(), InvalidArgument, false,
                      "%s: key and value must have the same shape", op);
  ET_KERNEL_CHECK_MSG(ctx, q.size(0) == k.size(0) && q.size(3) == k.size(3), InvalidArgument, false,
                      "%s: query and key/value differ in batch or head_dim", op);
  // Query head h reads kv head h / (heads / kv_heads), so kv_heads is a
  // divisor and must be positive even when q has no heads (0 of 0 passes a
  // plain multiple check and divides by zero).
  const int64_t heads = q.size(head_dim), kv_heads = k.size(head_dim);
  ET_KERNEL_CHECK_MSG(ctx, kv_heads > 0, InvalidArgument, false,
                      "%s: argument 'key' has no heads (dim %d is 0)", op, head_dim);
  ET_KERNEL_CHECK_MSG(ctx, heads % kv_heads == 0, InvalidArgument, false,
                      "%s: argument 'query' has %lld heads, not a multiple of the %lld heads of "
                      "'key'",
                      op, static_cast<long long>(heads), static_cast<long long>(kv_heads));
  ET_KERNEL_CHECK_MSG(ctx, start_pos >= 0, InvalidArgument, false, "%s: start_pos %lld is negative",
                      op, static_cast<long long>(start_pos));
  const int64_t q_len = q.size(seq_dim), kv_len = k.size(seq_dim);
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
 * Where row (b, s, h) of a [batch, seq, heads, head_dim] tensor starts, for
 * the sequence at dim 1 (what the export emits) or at dim 2 ([batch, heads,
 * seq, head_dim], custom_quantized_sdpa's is_seq_at_dim_2).
 */
struct Layout {
  int64_t seq, heads, dim;
  bool seq_at_dim_2;
  int64_t row(int64_t b, int64_t s, int64_t h) const {
    return seq_at_dim_2 ? ((b * heads + h) * seq + s) * dim : ((b * seq + s) * heads + h) * dim;
  }
};

/* The attention problem on checked arguments. */
struct Attention {
  int64_t batch, q_len, heads, kv_len, kv_heads, dim;
  bool seq_at_dim_2;
  int64_t start_pos, keys;
  bool is_causal;
  float scale;
  const float* mask;  // [q_len, kv_len] or null
  Layout q_layout() const {
    return {q_len, heads, dim, seq_at_dim_2};
  }
  Layout kv_layout() const {
    return {kv_len, kv_heads, dim, seq_at_dim_2};
  }
};

/*
 * One attention row at a time in float. Reduced-precision probabilities are
 * rounded to T before they weight v, as upstream's kernel does.
 */
template <class T>
void attention(const Attention& a, const T* qd, const T* kd, const T* vd, T* od) {
  using Acc = float;
  const Layout ql = a.q_layout(), kl = a.kv_layout();
  // kv_heads > 0 and divides heads (check_sdpa_args); group is 0 only when
  // there are no query heads, and then h / group below never runs.
  const int64_t group = a.heads / a.kv_heads;
  constexpr Acc kNegInf = -std::numeric_limits<Acc>::infinity();
  std::vector<Acc> score(static_cast<size_t>(a.keys));
  std::vector<Acc> acc(static_cast<size_t>(a.dim));
  for (int64_t b = 0; b < a.batch; ++b) {
    for (int64_t h = 0; h < a.heads; ++h) {
      const int64_t hk = h / group;
      for (int64_t m = 0; m < a.q_len; ++m) {
        const T* qrow = qd + ql.row(b, m, h);
        const int64_t visible = a.is_causal ? std::min(a.keys, a.start_pos + m + 1) : a.keys;
        Acc max = kNegInf;
        for (int64_t n = 0; n < visible; ++n) {
          const T* krow = kd + kl.row(b, n, hk);
          Acc dot = 0;
          for (int64_t d = 0; d < a.dim; ++d) {
            dot += static_cast<Acc>(qrow[d]) * static_cast<Acc>(krow[d]);
          }
          Acc s = dot * a.scale;
          if (a.mask != nullptr) {
            s += a.mask[m * a.kv_len + n];
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
            const T* vrow = vd + kl.row(b, n, hk);
            for (int64_t d = 0; d < a.dim; ++d) {
              acc[d] += p * static_cast<Acc>(vrow[d]);
            }
          }
        }
        const Acc inv = Acc(1) / sum;
        T* orow = od + ql.row(b, m, h);
        for (int64_t d = 0; d < a.dim; ++d) {
          orow[d] = static_cast<T>(acc[d] * inv);
        }
      }
    }
  }
}

/* The problem of checked q/k/v with the sequence at dim 1 (or 2). */
Attention describe(const Tensor& q, const Tensor& k, int64_t start_pos,
                   const std::optional<Tensor>& mask, bool is_causal, std::optional<double> scale,
                   int64_t keys, bool seq_at_dim_2 = false) {
  const int s = seq_at_dim_2 ? 2 : 1, h = seq_at_dim_2 ? 1 : 2;
  return Attention{
      q.size(0),
      q.size(s),
      q.size(h),
      k.size(s),
      k.size(h),
      q.size(3),
      seq_at_dim_2,
      start_pos,
      keys,
      is_causal,
      static_cast<float>(scale.has_value() ? *scale
                                           : 1.0 / std::sqrt(static_cast<double>(q.size(3)))),
      mask.has_value() ? mask->const_data_ptr<float>() : nullptr};
}

/* Runs the attention on checked arguments. */
void run_sdpa(KernelRuntimeContext& ctx, const char* op, const Tensor& q, const Tensor& k,
              const Tensor& v, int64_t start_pos, const std::optional<Tensor>& mask, bool is_causal,
              std::optional<double> scale, int64_t keys, Tensor& out) {
  const Attention a = describe(q, k, start_pos, mask, is_causal, scale, keys);
  dispatch_dtype<kAttentionDtypes>(ctx, op, q.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    attention<T>(a, q.const_data_ptr<T>(), k.const_data_ptr<T>(), v.const_data_ptr<T>(),
                 out.mutable_data_ptr<T>());
  });
}

Tensor& custom_sdpa_out(KernelRuntimeContext& ctx, const Tensor& q, const Tensor& k,
                        const Tensor& v, int64_t start_pos, const std::optional<Tensor>& attn_mask,
                        double dropout_p, bool is_causal, std::optional<double> scale,
                        Tensor& out) {
  (void)dropout_p;
  const char* op = log_name(custom_sdpa_out_name);
  int64_t keys = 0;
  if (check_same_dtype(ctx, op, "query", q, "out", out) &&
      check_sdpa_args(ctx, op, q, k, v, start_pos, attn_mask, is_causal, out, &keys)) {
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
      !check_same_dtype(ctx, op, "query", q, "out", out) ||
      !check_sdpa_args(ctx, op, q, key_cache, value_cache, start_pos, attn_mask, is_causal, out,
                       &keys)) {
    return out;
  }
  write_cache(k, key_cache, start_pos);
  write_cache(v, value_cache, start_pos);
  run_sdpa(ctx, op, q, key_cache, value_cache, start_pos, attn_mask, is_causal, scale, keys, out);
  return out;
}

/*
 * The int8 tensor t (seq at dim 1 or 2) has one Float scale and one Char
 * zero point per row: parameter tensors of t's shape with head_dim 1.
 */
bool check_row_qparams(KernelRuntimeContext& ctx, const char* op, const char* arg, const Tensor& t,
                       const std::optional<Tensor>& zero_points,
                       const std::optional<Tensor>& scales) {
  ET_KERNEL_CHECK_MSG(ctx, zero_points.has_value() && scales.has_value(), InvalidArgument, false,
                      "%s: an int8 %s needs its zero points and scales", op, arg);
  const Tensor& zp = *zero_points;
  const Tensor& sc = *scales;
  if (!check_dtype(ctx, op, "zero_points", zp, ScalarType::Char) ||
      !check_dtype(ctx, op, "scales", sc, ScalarType::Float) ||
      !check_contiguous(ctx, op, "zero_points", zp) || !check_contiguous(ctx, op, "scales", sc)) {
    return false;
  }
  bool same = zp.dim() == t.dim() && sc.dim() == t.dim() && zp.size(3) == 1 && sc.size(3) == 1;
  for (int d = 0; same && d < 3; ++d) {
    same = zp.size(d) == t.size(d) && sc.size(d) == t.size(d);
  }
  ET_KERNEL_CHECK_MSG(ctx, same, InvalidArgument, false,
                      "%s: the zero points and scales of %s must have its shape with head_dim 1",
                      op, arg);
  return true;
}

/* (t - zero_point) * scale per row, into a float buffer of t's layout. */
std::vector<float> dequantize_rows(const Tensor& t, const Tensor& zero_points,
                                   const Tensor& scales) {
  const int64_t dim = t.size(3);
  std::vector<float> out(static_cast<size_t>(t.numel()));
  const int8_t* x = t.const_data_ptr<int8_t>();
  const int8_t* zp = zero_points.const_data_ptr<int8_t>();
  const float* sc = scales.const_data_ptr<float>();
  for (int64_t r = 0; dim > 0 && r < t.numel() / dim; ++r) {
    for (int64_t d = 0; d < dim; ++d) {
      out[r * dim + d] = static_cast<float>(static_cast<int16_t>(x[r * dim + d]) - zp[r]) * sc[r];
    }
  }
  return out;
}

/*
 * custom_quantized_sdpa.out: custom_sdpa over int8 q, k and v quantized per
 * row (per token and head) with int8 zero points and float scales, what the
 * export's quantized KV cache emits; the scores and the output are float.
 * Float q, k and v behave as custom_sdpa (the qparams are not read).
 * is_seq_at_dim_2 puts the sequence at dim 2 ([batch, heads, seq, dim]);
 * upstream reads float tensors inconsistently in that layout, so it is
 * accepted for int8 only.
 */
Tensor& custom_quantized_sdpa_out(
    KernelRuntimeContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v, int64_t start_pos,
    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
    std::optional<double> scale, const std::optional<Tensor>& q_zero_points,
    const std::optional<Tensor>& q_scales, const std::optional<Tensor>& k_zero_points,
    const std::optional<Tensor>& k_scales, const std::optional<Tensor>& v_zero_points,
    const std::optional<Tensor>& v_scales, bool is_seq_at_dim_2, Tensor& out) {
  (void)dropout_p;
  const char* op = log_name(custom_quantized_sdpa_out_name);
  int64_t keys = 0;
  if (q.scalar_type() != ScalarType::Char) {
    ET_KERNEL_CHECK_MSG(ctx, !is_seq_at_dim_2, InvalidArgument, out,
                        "%s: is_seq_at_dim_2 is supported for int8 query, key and value only", op);
    if (check_same_dtype(ctx, op, "query", q, "out", out) &&
        check_sdpa_args(ctx, op, q, k, v, start_pos, attn_mask, is_causal, out, &keys)) {
      run_sdpa(ctx, op, q, k, v, start_pos, attn_mask, is_causal, scale, keys, out);
    }
    return out;
  }
  if (!check_dtype(ctx, op, "out", out, ScalarType::Float) ||
      !check_sdpa_args(ctx, op, q, k, v, start_pos, attn_mask, is_causal, out, &keys,
                       dtype_bit(ScalarType::Char), is_seq_at_dim_2) ||
      !check_row_qparams(ctx, op, "query", q, q_zero_points, q_scales) ||
      !check_row_qparams(ctx, op, "key", k, k_zero_points, k_scales) ||
      !check_row_qparams(ctx, op, "value", v, v_zero_points, v_scales)) {
    return out;
  }
  const std::vector<float> qf = dequantize_rows(q, *q_zero_points, *q_scales);
  const std::vector<float> kf = dequantize_rows(k, *k_zero_points, *k_scales);
  const std::vector<float> vf = dequantize_rows(v, *v_zero_points, *v_scales);
  const Attention a = describe(q, k, start_pos, attn_mask, is_causal, scale, keys, is_seq_at_dim_2);
  attention<float>(a, qf.data(), kf.data(), vf.data(), out.mutable_data_ptr<float>());
  return out;
}

}  // namespace

ETK_REGISTER_KERNEL(custom_sdpa_out_name, custom_sdpa_out);
ETK_REGISTER_KERNEL(custom_quantized_sdpa_out_name, custom_quantized_sdpa_out);
ETK_REGISTER_KERNEL(sdpa_with_kv_cache_out_name, sdpa_with_kv_cache_out);

}  // namespace kernels
}  // namespace executorch
