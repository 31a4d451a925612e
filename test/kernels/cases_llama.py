"""Golden cases of the LLM custom operators upstream ExecuTorch's export emits
(extension/llm/custom_ops: llama::custom_sdpa, sdpa_with_kv_cache,
custom_quantized_sdpa, update_cache, update_cache_with_indices) for
gen_goldens.py.

The expected values come from the eager kernels the executorch package
registers for them (libcustom_ops_aot_lib, upstream's op_sdpa.cpp and
op_update_cache.cpp built for ATen), so causal masking from start_pos,
grouped-query attention and the cache writes are upstream's. Cache writes
are checked on the mutated cache (result_arg).

    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only llama
"""
import torch

import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401 - registers llama::

from gen_goldens import B, F, I, NONE, Out, T


f32, f16, bf16, i8 = torch.float32, torch.float16, torch.bfloat16, torch.int8
NAME = {f32: "f32", f16: "f16", bf16: "bf16", i8: "i8"}
TOL = {f32: 1e-5, f16: 2e-3, bf16: 2e-2}
ERR = dict(error="InvalidArgument")


def r(*shape, dtype=f32):
    if dtype == i8:
        return torch.randint(-128, 128, shape, dtype=i8)
    return torch.randn(shape).to(dtype)


def placeholder(dtype):
    """update_cache's out: the [1] placeholder the export allocates."""
    return Out(dtype, shape=[1], eager_shape=[1])


def update_cache_cases(g):
    op = "llama::update_cache.out"
    for dt in (f32, f16, bf16, i8):
        for batch, seq, start in ((1, 3, 0), (1, 3, 2), (1, 3, 5), (2, 1, 7), (2, 4, 4)):
            g.case("%s_b%d_seq%d_at%d" % (NAME[dt], batch, seq, start), op,
                   T(r(batch, seq, 2, 4, dtype=dt)), T(r(batch, 8, 2, 4, dtype=dt)), I(start),
                   out=placeholder(dt), result_arg=1)
    cache = r(1, 8, 2, 4)
    for label, start, seq in (("start_at_end", 8, 1), ("past_end", 6, 3), ("negative", -1, 1),
                              ("empty_at_end", 8, 0), ("huge", 2**62, 1)):
        g.case("err_" + label, op, T(r(1, seq, 2, 4)), T(cache), I(start), out=placeholder(f32),
               **ERR)
    g.case("err_heads", op, T(r(1, 1, 3, 4)), T(cache), I(0), out=placeholder(f32), **ERR)
    g.case("err_head_dim", op, T(r(1, 1, 2, 5)), T(cache), I(0), out=placeholder(f32), **ERR)
    g.case("err_batch", op, T(r(2, 1, 2, 4)), T(cache), I(0), out=placeholder(f32), **ERR)
    g.case("err_rank", op, T(r(1, 2, 4)), T(cache), I(0), out=placeholder(f32), **ERR)
    g.case("err_element_size", op, T(r(1, 1, 2, 4, dtype=f16)), T(cache), I(0),
           out=placeholder(f32), **ERR)
    g.case("err_channels_last_cache", op, T(r(1, 1, 2, 4)), T(cache, (0, 2, 3, 1)), I(0),
           out=placeholder(f32), **ERR)

    op = "llama::update_cache_with_indices.out"
    for dt in (f32, f16, i8):
        for label, idx in (("scatter", [[7, 0, 3]]), ("repeat_last_wins", [[2, 2, 5]]),
                           ("batch2", [[1, 2, 3], [7, 6, 5]])):
            batch = len(idx)
            g.case("%s_%s" % (NAME[dt], label), op, T(r(batch, 3, 2, 4, dtype=dt)),
                   T(r(batch, 8, 2, 4, dtype=dt)), I(0), T(torch.tensor(idx)),
                   out=placeholder(dt), result_arg=1)
    for label, idx in (("index_at_end", [[0, 8]]), ("negative", [[-1, 0]])):
        g.case("err_" + label, op, T(r(1, 2, 2, 4)), T(cache), I(0), T(torch.tensor(idx)),
               out=placeholder(f32), **ERR)
    g.case("err_int_indices", op, T(r(1, 2, 2, 4)), T(cache), I(0),
           T(torch.tensor([[0, 1]], dtype=torch.int32)), out=placeholder(f32), **ERR)
    g.case("err_indices_shape", op, T(r(1, 2, 2, 4)), T(cache), I(0), T(torch.tensor([[0, 1, 2]])),
           out=placeholder(f32), **ERR)


def causal_mask(q_len, kv_len, start):
    m = torch.zeros(q_len, kv_len)
    for i in range(q_len):
        m[i, start + i + 1:] = float("-inf")
    return m


def sdpa_out(q, dtype):
    return Out(dtype, eager_shape=list(q.shape))


def custom_sdpa_cases(g):
    op = "llama::custom_sdpa.out"
    # (batch, q_len, heads, kv_heads, kv_len, head_dim, start_pos)
    shapes = ((1, 4, 4, 4, 10, 8, 0), (1, 4, 4, 2, 10, 8, 3), (1, 1, 6, 1, 10, 16, 9),
              (2, 3, 8, 2, 12, 4, 5), (1, 5, 2, 2, 5, 8, 0), (1, 1, 4, 4, 8, 8, 0),
              (1, 7, 4, 1, 16, 32, 2))
    for b, ql, h, hk, kl, d, start in shapes:
        label = "b%d_q%d_h%d_kv%d_len%d_d%d_at%d" % (b, ql, h, hk, kl, d, start)
        q, k, v = r(b, ql, h, d), r(b, kl, hk, d), r(b, kl, hk, d)
        for causal in (True, False):
            g.case(label + ("_causal" if causal else "_full"), op, T(q), T(k), T(v), I(start),
                   NONE, F(0.0), B(causal), NONE, out=sdpa_out(q, f32), rtol=1e-4, atol=1e-5)
        g.case(label + "_scale", op, T(q), T(k), T(v), I(start), NONE, F(0.0), B(True), F(0.3),
               out=sdpa_out(q, f32), rtol=1e-4, atol=1e-5)
        g.case(label + "_mask", op, T(q), T(k), T(v), I(start), T(causal_mask(ql, kl, start)),
               F(0.0), B(False), NONE, out=sdpa_out(q, f32), rtol=1e-4, atol=1e-5)
        g.case(label + "_additive_mask", op, T(q), T(k), T(v), I(start), T(torch.randn(ql, kl)),
               F(0.0), B(False), NONE, out=sdpa_out(q, f32), rtol=1e-4, atol=1e-5)
    for dt in (f16, bf16):
        for b, ql, h, hk, kl, d, start in shapes[:4]:
            q, k, v = r(b, ql, h, d, dtype=dt), r(b, kl, hk, d, dtype=dt), r(b, kl, hk, d, dtype=dt)
            g.case("%s_b%d_q%d_h%d_kv%d_at%d" % (NAME[dt], b, ql, h, hk, start), op, T(q), T(k),
                   T(v), I(start), NONE, F(0.0), B(True), NONE, out=sdpa_out(q, dt),
                   rtol=TOL[dt], atol=TOL[dt])
    # (An empty query divides by zero in the eager kernel: not covered.)

    q, k = r(1, 2, 4, 8), r(1, 6, 2, 8)
    out = Out(f32, shape=[1, 2, 4, 8])
    args = (T(q), T(k), T(k))
    g.case("err_past_cache", op, *args, I(5), NONE, F(0.0), B(True), NONE, out=out, **ERR)
    g.case("err_negative_start", op, *args, I(-1), NONE, F(0.0), B(True), NONE, out=out, **ERR)
    g.case("err_huge_start", op, *args, I(2**63 - 1), NONE, F(0.0), B(True), NONE, out=out, **ERR)
    g.case("err_mask_and_causal", op, *args, I(0), T(torch.zeros(2, 6)), F(0.0), B(True), NONE,
           out=out, **ERR)
    g.case("err_mask_shape", op, *args, I(0), T(torch.zeros(2, 5)), F(0.0), B(False), NONE,
           out=out, **ERR)
    g.case("err_mask_dtype", op, *args, I(0), T(torch.zeros(2, 6, dtype=f16)), F(0.0), B(False),
           NONE, out=out, **ERR)
    g.case("err_head_ratio", op, T(r(1, 2, 6, 8)), T(r(1, 6, 4, 8)), T(r(1, 6, 4, 8)), I(0), NONE,
           F(0.0), B(True), NONE, out=Out(f32, shape=[1, 2, 6, 8]), **ERR)
    g.case("err_more_kv_heads", op, T(r(1, 2, 2, 8)), T(r(1, 6, 4, 8)), T(r(1, 6, 4, 8)), I(0),
           NONE, F(0.0), B(True), NONE, out=Out(f32, shape=[1, 2, 2, 8]), **ERR)
    g.case("err_head_dim", op, T(q), T(r(1, 6, 2, 4)), T(r(1, 6, 2, 4)), I(0), NONE, F(0.0),
           B(True), NONE, out=out, **ERR)
    g.case("err_batch", op, T(r(2, 2, 4, 8)), T(k), T(k), I(0), NONE, F(0.0), B(True), NONE,
           out=Out(f32, shape=[2, 2, 4, 8]), **ERR)
    g.case("err_kv_shapes", op, T(q), T(k), T(r(1, 5, 2, 8)), I(0), NONE, F(0.0), B(True), NONE,
           out=out, **ERR)
    g.case("err_dtype", op, T(q), T(k.to(f16)), T(k.to(f16)), I(0), NONE, F(0.0), B(True), NONE,
           out=out, **ERR)
    g.case("err_int8", op, T(r(1, 2, 4, 8, dtype=i8)), T(r(1, 6, 2, 8, dtype=i8)),
           T(r(1, 6, 2, 8, dtype=i8)), I(0), NONE, F(0.0), B(True), NONE,
           out=Out(i8, shape=[1, 2, 4, 8]), **ERR)
    g.case("err_rank", op, T(r(2, 4, 8)), T(k), T(k), I(0), NONE, F(0.0), B(True), NONE,
           out=Out(f32, shape=[2, 4, 8]), **ERR)


def sdpa_with_kv_cache_cases(g):
    op = "llama::sdpa_with_kv_cache.out"
    # (batch, seq, heads, kv_heads, max_seq_len, head_dim, start_pos)
    shapes = ((1, 2, 4, 2, 10, 8, 3), (1, 1, 4, 4, 10, 8, 9), (2, 3, 6, 3, 8, 4, 0),
              (1, 4, 8, 1, 12, 16, 6))
    for b, sl, h, hk, ms, d, start in shapes:
        label = "b%d_seq%d_h%d_kv%d_max%d_at%d" % (b, sl, h, hk, ms, start)
        q, k, v = r(b, sl, h, d), r(b, sl, hk, d), r(b, sl, hk, d)
        kc, vc = r(b, ms, hk, d), r(b, ms, hk, d)
        for causal in (True, False):
            args = (T(q), T(k), T(v), T(kc), T(vc), I(start), I(sl), NONE, F(0.0), B(causal),
                    NONE)
            kind = "_causal" if causal else "_full"
            g.case(label + kind, op, *args, out=sdpa_out(q, f32), rtol=1e-4, atol=1e-5)
            g.case(label + kind + "_key_cache", op, *args, out=sdpa_out(q, f32), result_arg=3)
            g.case(label + kind + "_value_cache", op, *args, out=sdpa_out(q, f32), result_arg=4)
        g.case(label + "_mask", op, T(q), T(k), T(v), T(kc), T(vc), I(start), I(sl),
               T(causal_mask(sl, ms, start)), F(0.0), B(False), NONE, out=sdpa_out(q, f32),
               rtol=1e-4, atol=1e-5)
    q, k = r(1, 2, 4, 8), r(1, 2, 2, 8)
    kc = r(1, 10, 2, 8)
    out = Out(f32, shape=[1, 2, 4, 8])
    for label, start, sl in (("start_at_end", 10, 2), ("past_end", 9, 2), ("negative", -1, 2),
                             ("seq_len_past_end", 4, 7), ("negative_seq_len", 0, -1)):
        g.case("err_" + label, op, T(q), T(k), T(k), T(kc), T(kc), I(start), I(sl), NONE, F(0.0),
               B(True), NONE, out=out, **ERR)
    g.case("err_k_longer_than_seq_len", op, T(q), T(r(1, 4, 2, 8)), T(r(1, 4, 2, 8)), T(kc), T(kc),
           I(8), I(2), NONE, F(0.0), B(True), NONE, out=out, **ERR)
    g.case("err_cache_rank", op, T(q), T(k), T(k), T(r(10, 2, 8)), T(r(10, 2, 8)), I(0), I(2),
           NONE, F(0.0), B(True), NONE, out=out, **ERR)
    g.case("err_cache_heads", op, T(q), T(k), T(k), T(r(1, 10, 4, 8)), T(r(1, 10, 4, 8)), I(0),
           I(2), NONE, F(0.0), B(True), NONE, out=out, **ERR)
    g.case("err_cache_dtype", op, T(q), T(k), T(k), T(kc.to(f16)), T(kc.to(f16)), I(0), I(2),
           NONE, F(0.0), B(True), NONE, out=out, **ERR)
    g.case("err_head_ratio", op, T(r(1, 2, 3, 8)), T(k), T(k), T(kc), T(kc), I(0), I(2), NONE,
           F(0.0), B(True), NONE, out=Out(f32, shape=[1, 2, 3, 8]), **ERR)


def quantized_rows(*shape):
    """int8 values with one int8 zero point and float scale per row (head_dim 1)."""
    rows = shape[:3] + (1,)
    return (T(torch.randint(-128, 128, shape, dtype=i8)),
            T(torch.randint(-10, 11, rows, dtype=i8)), T(torch.rand(rows) * 0.05 + 0.005))


def custom_quantized_sdpa_cases(g):
    op = "llama::custom_quantized_sdpa.out"
    # (batch, q_len, heads, kv_heads, kv_len, head_dim, start_pos)
    shapes = ((1, 3, 4, 2, 10, 8, 2), (1, 1, 4, 4, 10, 16, 9), (2, 4, 6, 3, 8, 4, 0),
              (1, 6, 8, 1, 12, 32, 5))
    for b, ql, h, hk, kl, d, start in shapes:
        label = "b%d_q%d_h%d_kv%d_len%d_d%d_at%d" % (b, ql, h, hk, kl, d, start)
        for seq2 in (False, True):
            qs, ks = ((b, h, ql, d), (b, hk, kl, d)) if seq2 else ((b, ql, h, d), (b, kl, hk, d))
            q, qz, qsc = quantized_rows(*qs)
            k, kz, ksc = quantized_rows(*ks)
            v, vz, vsc = quantized_rows(*ks)
            lay = "_seq_dim2" if seq2 else ""
            for causal in (True, False):
                g.case(label + lay + ("_causal" if causal else "_full"), op, q, k, v, I(start),
                       NONE, F(0.0), B(causal), NONE, qz, qsc, kz, ksc, vz, vsc, B(seq2),
                       out=Out(f32, eager_shape=list(qs)), rtol=1e-4, atol=1e-5)
        q, qz, qsc = quantized_rows(b, ql, h, d)
        k, kz, ksc = quantized_rows(b, kl, hk, d)
        v, vz, vsc = quantized_rows(b, kl, hk, d)
        g.case(label + "_mask", op, q, k, v, I(start), T(causal_mask(ql, kl, start)), F(0.0),
               B(False), F(0.25), qz, qsc, kz, ksc, vz, vsc, B(False),
               out=Out(f32, eager_shape=[b, ql, h, d]), rtol=1e-4, atol=1e-5)
    qf, kf = r(1, 2, 4, 8), r(1, 6, 2, 8)
    g.case("float_inputs", op, T(qf), T(kf), T(kf), I(3), NONE, F(0.0), B(True), NONE, NONE,
           NONE, NONE, NONE, NONE, NONE, B(False), out=Out(f32, eager_shape=[1, 2, 4, 8]),
           rtol=1e-4, atol=1e-5)

    q, qz, qsc = quantized_rows(1, 2, 4, 8)
    k, kz, ksc = quantized_rows(1, 6, 2, 8)
    out = Out(f32, shape=[1, 2, 4, 8])
    g.case("err_no_value_qparams", op, q, k, k, I(0), NONE, F(0.0), B(True), NONE, qz, qsc, kz,
           ksc, NONE, NONE, B(False), out=out, **ERR)
    g.case("err_scales_dtype", op, q, k, k, I(0), NONE, F(0.0), B(True), NONE, qz,
           T(qsc.t.to(f16)), kz, ksc, kz, ksc, B(False), out=out, **ERR)
    g.case("err_zero_points_shape", op, q, k, k, I(0), NONE, F(0.0), B(True), NONE,
           T(torch.zeros(1, 2, 4, 2, dtype=i8)), qsc, kz, ksc, kz, ksc, B(False), out=out, **ERR)
    g.case("err_half_out", op, q, k, k, I(0), NONE, F(0.0), B(True), NONE, qz, qsc, kz, ksc, kz,
           ksc, B(False), out=Out(f16, shape=[1, 2, 4, 8]), **ERR)
    g.case("err_past_cache", op, q, k, k, I(5), NONE, F(0.0), B(True), NONE, qz, qsc, kz, ksc,
           kz, ksc, B(False), out=out, **ERR)
    g.case("err_float_seq_dim2", op, T(qf), T(kf), T(kf), I(0), NONE, F(0.0), B(True), NONE, NONE,
           NONE, NONE, NONE, NONE, NONE, B(True), out=out, **ERR)


def cases(g):
    update_cache_cases(g)
    custom_sdpa_cases(g)
    sdpa_with_kv_cache_cases(g)
    custom_quantized_sdpa_cases(g)
