"""Golden cases of the quantized_decomposed operators (upstream ExecuTorch's
kernels/quantized/quantized.yaml) for gen_goldens.py.

The expected values come from the eager out variants that upstream's
executorch.kernels.quantized registers (its libquantized_ops_aot_lib, the
same C++ kernels upstream runs), so rounding ties, clamping, NaN/inf inputs
and the nudged zero points of choose_qparams are upstream's. The embedding
out variants have no eager kernel there; their expected values come from the
functional overloads' Python references (executorch.exir.passes.
_quant_patterns_and_replacements), which dequantize the table and gather.

    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only quantized
"""
import torch

import executorch.kernels.quantized  # noqa: F401 - registers the .out variants

from gen_goldens import DT, EAGER_OVERRIDES, F, I, NONE, Out, T


f32, f64, f16, bf16 = torch.float32, torch.float64, torch.float16, torch.bfloat16
u8, i8, i16, i32, i64 = torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64

QRANGE = {u8: (0, 255), i8: (-128, 127), i16: (-32768, 32767), i32: (-2**31, 2**31 - 1)}
NAME = {f32: "f32", f64: "f64", f16: "f16", bf16: "bf16", u8: "u8", i8: "i8", i16: "i16",
        i32: "i32", i64: "i64"}

Q = "quantized_decomposed::"


def floats(*shape, dtype=f32, spread=4.0):
    return (torch.randn(shape) * spread).to(dtype)


def qvalues(*shape, dtype=i8):
    lo, hi = QRANGE[dtype]
    lo, hi = max(lo, -300), min(hi, 300)
    return torch.randint(lo, hi + 1, shape, dtype=torch.int64).to(dtype)


def ties():
    # Multiples of 0.25 at scale 0.5: every other value is a rounding tie
    # (nearbyint rounds half to even), plus values past both clamp ends.
    return torch.cat([torch.arange(-10, 10, dtype=f32) * 0.25, torch.tensor([1e4, -1e4, 0.0])])


def quantize_cases(g):
    op = Q + "quantize_per_tensor.out"
    for dt in (f32, f64, f16):
        for qdt in (u8, i8, i16, i32):
            lo, hi = QRANGE[qdt]
            zp = (lo + hi + 1) // 2 if qdt != i32 else 3
            g.case("%s_to_%s" % (NAME[dt], NAME[qdt]), op, T(floats(3, 7, dtype=dt, spread=40)),
                   F(0.37), I(zp), I(lo), I(hi), DT(qdt), out=Out(qdt))
    g.case("ties_half_to_even", op, T(ties()), F(0.5), I(0), I(-128), I(127), DT(i8), out=Out(i8))
    g.case("narrow_range", op, T(floats(4, 5)), F(0.05), I(-3), I(-20), I(20), DT(i8), out=Out(i8))
    g.case("nan_inf", op, T(torch.tensor([float("nan"), float("inf"), float("-inf"), 1.0])),
           F(0.1), I(10), I(0), I(255), DT(u8), out=Out(u8))
    g.case("empty", op, T(floats(0, 3)), F(0.1), I(0), I(-128), I(127), DT(i8), out=Out(i8))
    g.case("rank0", op, T(torch.tensor(2.5)), F(0.1), I(1), I(-128), I(127), DT(i8), out=Out(i8))
    g.case("dynamic_out", op, T(floats(2, 3)), F(0.1), I(0), I(-128), I(127), DT(i8),
           out=Out(i8, shape=[4, 4], dynamic=True))
    g.case("tiny_scale", op, T(floats(2, 5)), F(1e-30), I(0), I(-128), I(127), DT(i8),
           out=Out(i8))
    err = dict(error="InvalidArgument")
    g.case("err_qmin_below_dtype", op, T(floats(2)), F(0.1), I(0), I(-129), I(127), DT(i8),
           out=Out(i8, shape=[2]), **err)
    g.case("err_qmax_above_dtype", op, T(floats(2)), F(0.1), I(0), I(0), I(256), DT(u8),
           out=Out(u8, shape=[2]), **err)
    g.case("err_out_not_dtype", op, T(floats(2)), F(0.1), I(0), I(0), I(127), DT(i8),
           out=Out(u8, shape=[2]), **err)
    g.case("err_int_input", op, T(torch.ones(2, dtype=i32)), F(0.1), I(0), I(-128), I(127),
           DT(i8), out=Out(i8, shape=[2]), **err)
    g.case("err_long_out", op, T(floats(2)), F(0.1), I(0), I(-128), I(127), DT(i64),
           out=Out(i64, shape=[2]), **err)
    for label, scale in (("zero", 0.0), ("negative", -0.5), ("nan", float("nan")),
                         ("inf", float("inf"))):
        g.case("err_scale_" + label, op, T(floats(2)), F(scale), I(0), I(-128), I(127), DT(i8),
               out=Out(i8, shape=[2]), **err)
    g.case("err_zero_point_int32", op, T(floats(2)), F(0.1), I(2**40), I(-128), I(127), DT(i8),
           out=Out(i8, shape=[2]), **err)
    g.case("err_static_out_shape", op, T(floats(2, 3)), F(0.1), I(0), I(-128), I(127), DT(i8),
           out=Out(i8, shape=[3, 2]), error="NotSupported")

    op = Q + "quantize_per_tensor.Tensor_out"
    g.case("basic", op, T(floats(3, 4)), T(torch.tensor([0.07], dtype=f64)),
           T(torch.tensor([5])), I(-128), I(127), DT(i8), out=Out(i8))
    g.case("uint8", op, T(floats(6, dtype=f64)), T(torch.tensor([0.02], dtype=f64)),
           T(torch.tensor([128])), I(0), I(255), DT(u8), out=Out(u8))
    g.case("err_float_scale", op, T(floats(2)), T(torch.tensor([0.1])), T(torch.tensor([0])),
           I(-128), I(127), DT(i8), out=Out(i8, shape=[2]), **err)
    g.case("err_two_scales", op, T(floats(2)), T(torch.tensor([0.1, 0.2], dtype=f64)),
           T(torch.tensor([0])), I(-128), I(127), DT(i8), out=Out(i8, shape=[2]), **err)
    g.case("err_int_zero_point", op, T(floats(2)), T(torch.tensor([0.1], dtype=f64)),
           T(torch.tensor([0], dtype=i32)), I(-128), I(127), DT(i8), out=Out(i8, shape=[2]), **err)

    op = Q + "quantize_per_channel.out"
    for shape, axis in (((4, 3), 0), ((4, 3), 1), ((2, 3, 5), 1), ((2, 3, 5), -1),
                        ((2, 3, 4, 2), 2), ((2, 3, 4, 2), -4), ((6,), 0)):
        n = shape[axis]
        g.case("shape%s_axis%d" % ("x".join(map(str, shape)), axis), op, T(floats(*shape)),
               T(torch.rand(n, dtype=f64) * 0.1 + 0.01), T(torch.randint(-5, 6, (n,))),
               I(axis), I(-128), I(127), DT(i8), out=Out(i8))
    g.case("uint8_f16", op, T(floats(3, 4, dtype=f16)), T(torch.tensor([0.1, 0.05, 0.2], dtype=f64)),
           T(torch.tensor([120, 128, 130])), I(0), I(0), I(255), DT(u8), out=Out(u8))
    g.case("empty_channel_dim", op, T(floats(0, 3)), T(torch.tensor([0.1, 0.2, 0.3], dtype=f64)),
           T(torch.tensor([0, 0, 0])), I(1), I(-128), I(127), DT(i8), out=Out(i8))
    g.case("err_axis", op, T(floats(2, 3)), T(torch.ones(3, dtype=f64)), T(torch.zeros(3, dtype=i64)),
           I(2), I(-128), I(127), DT(i8), out=Out(i8, shape=[2, 3]), **err)
    g.case("err_scale_count", op, T(floats(2, 3)), T(torch.ones(2, dtype=f64)),
           T(torch.zeros(2, dtype=i64)), I(1), I(-128), I(127), DT(i8),
           out=Out(i8, shape=[2, 3]), **err)
    g.case("err_float_scales", op, T(floats(2, 3)), T(torch.ones(3)), T(torch.zeros(3, dtype=i64)),
           I(1), I(-128), I(127), DT(i8), out=Out(i8, shape=[2, 3]), **err)
    g.case("err_channel_scale_zero", op, T(floats(2, 3)), T(torch.tensor([0.1, 0.0, 0.1], dtype=f64)),
           T(torch.zeros(3, dtype=i64)), I(1), I(-128), I(127), DT(i8),
           out=Out(i8, shape=[2, 3]), **err)
    g.case("err_noncontiguous", op, T(floats(1, 3, 2, 2), (0, 2, 3, 1)), T(torch.ones(3, dtype=f64)),
           T(torch.zeros(3, dtype=i64)), I(1), I(-128), I(127), DT(i8),
           out=Out(i8, shape=[1, 3, 2, 2], dim_order=(0, 2, 3, 1)), **err)

    op = Q + "quantize_per_token.out"
    for shape in ((4, 8), (2, 3, 8), (1, 16), (8,)):
        tokens = shape[:-1] + (1,)
        g.case("shape" + "x".join(map(str, shape)), op, T(floats(*shape)),
               T(torch.rand(tokens, dtype=f64) * 0.1 + 0.01), T(torch.randint(-10, 10, tokens)),
               I(-128), I(127), DT(i8), out=Out(i8))
    g.case("err_token_count", op, T(floats(3, 4)), T(torch.ones(2, 1, dtype=f64)),
           T(torch.zeros(2, 1, dtype=i64)), I(-128), I(127), DT(i8), out=Out(i8, shape=[3, 4]),
           **err)


def dequantize_cases(g):
    err = dict(error="InvalidArgument")
    op = Q + "dequantize_per_tensor.out"
    for qdt in (u8, i8, i16, i32):
        lo, hi = QRANGE[qdt]
        for dt in (f32, f64, f16):
            g.case("%s_to_%s" % (NAME[qdt], NAME[dt]), op, T(qvalues(3, 5, dtype=qdt)), F(0.0371),
                   I(7), I(lo), I(hi), DT(qdt), DT(dt), out=Out(dt))
    g.case("out_dtype_none", op, T(qvalues(4, 4)), F(0.25), I(-3), I(-128), I(127), DT(i8), NONE,
           out=Out(f32))
    g.case("empty", op, T(qvalues(0, 4)), F(0.25), I(0), I(-128), I(127), DT(i8), NONE,
           out=Out(f32))
    g.case("err_dtype_mismatch", op, T(qvalues(2)), F(0.1), I(0), I(-128), I(127), DT(u8), NONE,
           out=Out(f32, shape=[2]), **err)
    g.case("err_out_dtype_mismatch", op, T(qvalues(2)), F(0.1), I(0), I(-128), I(127), DT(i8),
           DT(f16), out=Out(f32, shape=[2]), **err)
    g.case("err_qmin_gt_qmax", op, T(qvalues(2)), F(0.1), I(0), I(10), I(-10), DT(i8), NONE,
           out=Out(f32, shape=[2]), **err)
    g.case("err_float_input", op, T(floats(2)), F(0.1), I(0), I(-128), I(127), DT(f32), NONE,
           out=Out(f32, shape=[2]), **err)
    g.case("err_int_out", op, T(qvalues(2)), F(0.1), I(0), I(-128), I(127), DT(i8), NONE,
           out=Out(i32, shape=[2]), **err)
    g.case("err_scale_nan", op, T(qvalues(2)), F(float("nan")), I(0), I(-128), I(127), DT(i8), NONE,
           out=Out(f32, shape=[2]), **err)

    op = Q + "dequantize_per_tensor.Tensor_out"
    g.case("basic", op, T(qvalues(3, 4, dtype=u8)), T(torch.tensor([0.02], dtype=f64)),
           T(torch.tensor([100])), I(0), I(255), DT(u8), NONE, out=Out(f32))
    g.case("f16_out", op, T(qvalues(3, 4)), T(torch.tensor([0.5], dtype=f64)),
           T(torch.tensor([-1])), I(-128), I(127), DT(i8), DT(f16), out=Out(f16))
    g.case("err_long_scale", op, T(qvalues(2)), T(torch.tensor([1])), T(torch.tensor([0])),
           I(-128), I(127), DT(i8), NONE, out=Out(f32, shape=[2]), **err)

    op = Q + "dequantize_per_channel.out"
    for shape, axis in (((4, 3), 0), ((4, 3), 1), ((2, 3, 5), -1), ((2, 3, 4, 2), 1),
                        ((2, 3, 4, 2), 3)):
        n = shape[axis]
        label = "shape%s_axis%d" % ("x".join(map(str, shape)), axis)
        for sdt in (f32, f64):
            g.case(label + "_scales_" + NAME[sdt], op, T(qvalues(*shape)),
                   T(torch.rand(n, dtype=sdt) * 0.1 + 0.01), T(torch.randint(-5, 6, (n,))),
                   I(axis), I(-128), I(127), DT(i8), NONE, out=Out(f32))
        g.case(label + "_no_zero_points", op, T(qvalues(*shape, dtype=u8)),
               T(torch.rand(n) * 0.1 + 0.01), NONE, I(axis), I(0), I(255), DT(u8), NONE,
               out=Out(f32))
    # (Half and Double outs of a rank-1 input fail in the eager library.)
    for dt in (f32,):
        g.case("rank1_" + NAME[dt], op, T(qvalues(6)), T(torch.rand(6) * 0.3 + 0.001),
               T(torch.randint(-5, 6, (6,))), I(0), I(-128), I(127), DT(i8), NONE, out=Out(dt))
    g.case("f16_out_i16", op, T(qvalues(3, 4, dtype=i16)), T(torch.rand(4, dtype=f64) * 0.01),
           T(torch.randint(-5, 6, (4,))), I(1), I(-32768), I(32767), DT(i16), DT(f16),
           out=Out(f16))
    g.case("err_zero_point_count", op, T(qvalues(2, 3)), T(torch.ones(3)),
           T(torch.zeros(2, dtype=i64)), I(1), I(-128), I(127), DT(i8), NONE,
           out=Out(f32, shape=[2, 3]), **err)
    g.case("err_float_zero_points", op, T(qvalues(2, 3)), T(torch.ones(3)), T(torch.zeros(3)),
           I(1), I(-128), I(127), DT(i8), NONE, out=Out(f32, shape=[2, 3]), **err)
    g.case("err_axis", op, T(qvalues(2, 3)), T(torch.ones(3)), NONE, I(-3), I(-128), I(127),
           DT(i8), NONE, out=Out(f32, shape=[2, 3]), **err)

    op = Q + "dequantize_per_token.out"
    for shape in ((4, 8), (2, 3, 8), (5,)):
        tokens = shape[:-1] + (1,)
        for sdt, zdt in ((f64, i64), (f32, i32)):
            g.case("shape%s_%s" % ("x".join(map(str, shape)), NAME[sdt]), op, T(qvalues(*shape)),
                   T(torch.rand(tokens, dtype=sdt) * 0.1 + 0.01),
                   T(torch.randint(-10, 10, tokens).to(zdt)), I(-128), I(127), DT(i8), DT(f32),
                   out=Out(f32))
    g.case("f16_out", op, T(qvalues(2, 4)), T(torch.rand(2, 1, dtype=f64)),
           T(torch.zeros(2, 1, dtype=i64)), I(-128), I(127), DT(i8), DT(f16), out=Out(f16))
    g.case("err_output_dtype", op, T(qvalues(2, 4)), T(torch.ones(2, 1, dtype=f64)),
           T(torch.zeros(2, 1, dtype=i64)), I(-128), I(127), DT(i8), DT(f16),
           out=Out(f32, shape=[2, 4]), **err)
    g.case("err_scales_not_contiguous", op, T(qvalues(2, 3, 4)),
           T(torch.ones(2, 3, 1, dtype=f64), (1, 0, 2)), T(torch.zeros(2, 3, 1, dtype=i64)),
           I(-128), I(127), DT(i8), DT(f32), out=Out(f32, shape=[2, 3, 4]), **err)
    g.case("err_token_count", op, T(qvalues(2, 4)), T(torch.ones(3, 1, dtype=f64)),
           T(torch.zeros(3, 1, dtype=i64)), I(-128), I(127), DT(i8), DT(f32),
           out=Out(f32, shape=[2, 4]), **err)


def choose_qparams_cases(g):
    err = dict(error="InvalidArgument")
    op = Q + "choose_qparams.Tensor_out"
    inputs = {
        "randn": floats(4, 9),
        "positive": torch.rand(20) * 3 + 1,
        "negative": -torch.rand(20) * 3 - 1,
        "zeros": torch.zeros(5),
        "tiny_range": torch.rand(10) * 1e-4,
        "tiny_both_signs": (torch.rand(10) - 0.5) * 1e-4,
        "wide": floats(30, spread=1e3),
        "one_value": torch.tensor([0.3]),
    }
    for label, x in inputs.items():
        for lo, hi in ((-128, 127), (0, 255), (-8, 7)):
            for which, name in ((0, "scale"), (1, "zero_point")):
                g.case("%s_%d_%d_%s" % (label, lo, hi, name), op, T(x), I(lo), I(hi),
                       F(torch.finfo(f32).eps), DT(i8 if lo < 0 else u8),
                       out=[Out(f64, shape=[1]), Out(i64, shape=[1])], ret=which)
    g.case("err_qmin_ge_qmax", op, T(floats(4)), I(5), I(5), F(1e-7), DT(i8),
           out=[Out(f64, shape=[1]), Out(i64, shape=[1])], **err)
    g.case("err_double_input", op, T(floats(4, dtype=f64)), I(-128), I(127), F(1e-7), DT(i8),
           out=[Out(f64, shape=[1]), Out(i64, shape=[1])], **err)
    g.case("err_float_scale_out", op, T(floats(4)), I(-128), I(127), F(1e-7), DT(i8),
           out=[Out(f32, shape=[1]), Out(i64, shape=[1])], **err)
    g.case("err_empty", op, T(floats(0)), I(-128), I(127), F(1e-7), DT(i8),
           out=[Out(f64, shape=[1]), Out(i64, shape=[1])], **err)

    op = Q + "choose_qparams_per_token_asymmetric.out"
    for shape in ((4, 16), (2, 3, 8), (1, 1), (7,)):
        x = floats(*shape)
        if len(shape) > 1:
            x[0] = 0.0  # an all-zero token
        for which, name in ((0, "scale"), (1, "zero_point")):
            g.case("shape%s_%s" % ("x".join(map(str, shape)), name), op, T(x), DT(i8),
                   out=[Out(f64), Out(i64)], ret=which)
    g.case("dynamic_outs", op, T(floats(3, 5)), DT(i8),
           out=[Out(f64, shape=[4, 4], dynamic=True), Out(i64, shape=[4, 4], dynamic=True)])
    g.case("zero_tokens", op, T(floats(0, 5)), DT(i8), out=[Out(f64), Out(i64)])
    g.case("err_rank0", op, T(torch.tensor(1.0)), DT(i8),
           out=[Out(f64, shape=[1]), Out(i64, shape=[1])], **err)
    g.case("err_empty_tokens", op, T(floats(3, 0)), DT(i8),
           out=[Out(f64, shape=[3, 1]), Out(i64, shape=[3, 1])], **err)


class _ViaFunctional:
    """An embedding out variant computed by its functional overload."""

    def __init__(self, out_op, functional, untyped=None):
        self._schema = out_op._schema
        self.functional = functional
        self.untyped = untyped

    def __call__(self, *args, out, **kw):
        if self.untyped is not None and kw.get("dtype") is None:
            # The .dtype references cannot take dtype=None: the plain overload
            # keeps the scales' dtype, as dtype=None does.
            kw.pop("dtype", None)
            out.copy_(self.untyped(*args, **kw))
        else:
            out.copy_(self.functional(*args, **kw))
        return out


def embedding_cases(g):
    err = dict(error="InvalidArgument")
    rows = 10
    for name in ("embedding_byte", "embedding_2bit", "embedding_4bit"):
        packet = getattr(torch.ops.quantized_decomposed, name)
        EAGER_OVERRIDES[Q + name + ".out"] = _ViaFunctional(packet.out, packet.default)
        EAGER_OVERRIDES[Q + name + ".dtype_out"] = _ViaFunctional(packet.dtype_out, packet.dtype,
                                                                   packet.default)

    def weights(kind, dim):
        if kind == "byte_u8":
            return torch.randint(0, 256, (rows, dim), dtype=u8)
        if kind == "byte_i8":
            return torch.randint(-128, 128, (rows, dim), dtype=i8)
        return torch.randint(0, 256, (rows, dim // (8 // kind)), dtype=u8)

    for opname, kinds, bits in (("embedding_byte", ("byte_u8", "byte_i8"), 8),
                                ("embedding_4bit", (4,), 4), ("embedding_2bit", (2,), 2)):
        dim = 16
        index_dtypes = (i64,) if bits == 8 else (i64, i32)
        for kind in kinds:
            w = weights(kind, dim)
            wl = str(kind)
            # The Python references check the range of the packed values.
            qmin, qmax = {"byte_u8": (0, 255), "byte_i8": (-128, 127), 4: (-8, 7),
                          2: (-2, 1)}[kind]
            for groups in (1, 2, 4):
                scales = torch.rand(rows, groups) * 0.1 + 0.01 if groups > 1 \
                    else torch.rand(rows) * 0.1 + 0.01
                zps = torch.randint(-4, 5, scales.shape).to(f32)
                for idt in index_dtypes:
                    idx = torch.tensor([[0, 9, 3], [3, 5, 0]], dtype=idt)
                    for zl, z in (("zp", T(zps)), ("nozp", NONE)):
                        g.case("w%s_g%d_%s_%s" % (wl, groups, NAME[idt], zl), Q + opname + ".out",
                               T(w), T(scales), z, I(qmin), I(qmax), T(idx), out=Out(f32))
            scales = torch.rand(rows, 2) * 0.1 + 0.01
            for sdt, odt in ((f16, f16), (bf16, bf16), (f32, f16), (f16, f32), (f32, bf16)):
                # Upstream's kernel wants zero points of the out dtype, the
                # reference of the scales' dtype: only when they agree.
                zp = T(torch.randint(-4, 5, (rows, 2)).to(odt)) if sdt == odt else NONE
                # The reference dequantizes in the scales' dtype, upstream's
                # kernel in float: a half-precision tolerance when they differ.
                tol = 1e-3 if sdt != odt else None
                g.case("dtype_w%s_%s_to_%s" % (wl, NAME[sdt], NAME[odt]), Q + opname + ".dtype_out",
                       T(w), T(scales.to(sdt)), zp, I(qmin), I(qmax), T(torch.tensor([1, 2, 8])),
                       DT(odt), out=Out(odt), rtol=tol, atol=tol)
            g.case("dtype_none_w" + wl, Q + opname + ".dtype_out", T(w), T(scales), NONE,
                   I(qmin), I(qmax), T(torch.tensor([4])), NONE, out=Out(f32))
            g.case("half_w" + wl, Q + opname + ".out", T(w), T(scales.to(f16)), NONE, I(qmin),
                   I(qmax), T(torch.tensor([7, 1])), out=Out(f16))
            g.case("empty_indices_w" + wl, Q + opname + ".out", T(w), T(scales), NONE, I(qmin),
                   I(qmax), T(torch.zeros(0, dtype=i64)), out=Out(f32))
            g.case("scalar_index_w" + wl, Q + opname + ".out", T(w), T(scales), NONE, I(qmin),
                   I(qmax), T(torch.tensor(6)), out=Out(f32))
        w = weights(kinds[0], dim)
        scales = torch.rand(rows) * 0.1 + 0.01
        out_shape = [2, dim]
        for label, idx in (("negative", [0, -1]), ("past_end", [rows, 0])):
            g.case("err_index_" + label, Q + opname + ".out", T(w), T(scales), NONE, I(0), I(255),
                   T(torch.tensor(idx)), out=Out(f32, shape=out_shape), **err)
        g.case("err_scales_not_out_dtype", Q + opname + ".out", T(w), T(scales.to(f16)), NONE,
               I(0), I(255), T(torch.tensor([0, 1])), out=Out(f32, shape=out_shape), **err)
        g.case("err_groups", Q + opname + ".out", T(w), T(torch.ones(rows, 3)), NONE, I(0),
               I(255), T(torch.tensor([0, 1])), out=Out(f32, shape=out_shape), **err)
        g.case("err_scale_rows", Q + opname + ".out", T(w), T(torch.ones(rows - 1)), NONE, I(0),
               I(255), T(torch.tensor([0, 1])), out=Out(f32, shape=out_shape), **err)
        g.case("err_zero_point_dtype", Q + opname + ".out", T(w), T(scales),
               T(torch.zeros(rows, dtype=i64)), I(0), I(255), T(torch.tensor([0, 1])),
               out=Out(f32, shape=out_shape), **err)
        g.case("err_qmin_gt_qmax", Q + opname + ".out", T(w), T(scales), NONE, I(5), I(4),
               T(torch.tensor([0, 1])), out=Out(f32, shape=out_shape), **err)
        g.case("err_dtype_arg", Q + opname + ".dtype_out", T(w), T(scales), NONE, I(0), I(255),
               T(torch.tensor([0, 1])), DT(f16), out=Out(f32, shape=out_shape), **err)
        g.case("err_int_out", Q + opname + ".out", T(w), T(scales), NONE, I(0), I(255),
               T(torch.tensor([0, 1])), out=Out(i32, shape=out_shape), **err)
    g.case("err_int_indices", Q + "embedding_byte.out", T(weights("byte_u8", 4)),
           T(torch.ones(rows)), NONE, I(0), I(255), T(torch.tensor([0, 1], dtype=i32)),
           out=Out(f32, shape=[2, 4]), **err)
    g.case("err_signed_packed_weight", Q + "embedding_4bit.out", T(weights("byte_i8", 4)),
           T(torch.ones(rows)), NONE, I(0), I(255), T(torch.tensor([0, 1])),
           out=Out(f32, shape=[2, 8]), **err)


def arith_cases(g):
    err = dict(error="InvalidArgument")
    op = Q + "mixed_mm.out"
    for dt in (f32, f16):
        for m, n, p in ((3, 5, 4), (1, 16, 7), (4, 1, 1)):
            g.case("%s_%dx%dx%d" % (NAME[dt], m, n, p), op, T(floats(m, n, dtype=dt, spread=1)),
                   T(qvalues(n, p)), T((torch.rand(n) * 0.02 + 0.001).to(dt)), NONE, out=Out(dt),
                   rtol=1e-2 if dt == f16 else 1e-5, atol=1e-2 if dt == f16 else 1e-5)
    g.case("empty_rows", op, T(floats(0, 5)), T(qvalues(5, 3)), T(torch.rand(5)), NONE,
           out=Out(f32))
    g.case("err_zero_points", op, T(floats(2, 3)), T(qvalues(3, 2)), T(torch.rand(3)),
           T(torch.zeros(3)), out=Out(f32, shape=[2, 2]), **err)
    g.case("err_inner", op, T(floats(2, 3)), T(qvalues(4, 2)), T(torch.rand(4)), NONE,
           out=Out(f32, shape=[2, 2]), **err)
    g.case("err_uint8_weight", op, T(floats(2, 3)), T(qvalues(3, 2, dtype=u8)), T(torch.rand(3)),
           NONE, out=Out(f32, shape=[2, 2]), **err)
    g.case("err_scale_dtype", op, T(floats(2, 3)), T(qvalues(3, 2)), T(torch.rand(3, dtype=f64)),
           NONE, out=Out(f32, shape=[2, 2]), **err)

    op = Q + "mixed_linear.out"
    for dt, odt in ((f32, f32), (f16, f16), (f16, f32), (f32, f64)):
        for groups in (0, 1, 2, 3):
            m, n, p = 3, 8, 5
            scales = torch.rand(p, groups) * 0.02 + 0.001 if groups else torch.rand(p) * 0.02
            g.case("%s_to_%s_groups%d" % (NAME[dt], NAME[odt], groups), op,
                   T(floats(m, n, dtype=dt, spread=1)), T(qvalues(p, n)), T(scales.to(dt)), NONE,
                   NONE, out=Out(odt), rtol=1e-2 if f16 in (dt, odt) else 1e-5,
                   atol=1e-2 if f16 in (dt, odt) else 1e-5)
    g.case("dtype_arg", op, T(floats(2, 4)), T(qvalues(3, 4)), T(torch.rand(3)), NONE, DT(f32),
           out=Out(f32))
    g.case("err_dtype_arg", op, T(floats(2, 4)), T(qvalues(3, 4)), T(torch.rand(3)), NONE,
           DT(f16), out=Out(f32, shape=[2, 3]), **err)
    g.case("err_zero_points", op, T(floats(2, 4)), T(qvalues(3, 4)), T(torch.rand(3)),
           T(torch.zeros(3)), NONE, out=Out(f32, shape=[2, 3]), **err)
    g.case("err_inner", op, T(floats(2, 4)), T(qvalues(3, 5)), T(torch.rand(3)), NONE, NONE,
           out=Out(f32, shape=[2, 3]), **err)
    g.case("err_zero_groups", op, T(floats(2, 4)), T(qvalues(3, 4)), T(torch.rand(3, 0)), NONE,
           NONE, out=Out(f32, shape=[2, 3]), **err)

    op = Q + "add.out"
    for dt in (u8, i8, i32):
        for shape in ((2, 3, 4), (7,), (0, 2)):
            lo, hi = 0, 255
            g.case("%s_%s" % (NAME[dt], "x".join(map(str, shape))), op,
                   T(torch.randint(0, 128, shape).to(dt)), F(0.05), I(10), I(lo), I(hi),
                   T(torch.randint(0, 128, shape).to(dt)), F(0.1), I(64), I(lo), I(hi),
                   F(0.12), I(30), I(lo), I(hi), out=Out(dt))
    g.case("saturates", op, T(torch.full((4,), 250, dtype=u8)), F(1.0), I(0), I(0), I(255),
           T(torch.full((4,), 250, dtype=u8)), F(1.0), I(0), I(0), I(255), F(1.0), I(0), I(0),
           I(200), out=Out(u8))
    g.case("err_range", op, T(torch.ones(2, dtype=u8)), F(0.1), I(0), I(0), I(300),
           T(torch.ones(2, dtype=u8)), F(0.1), I(0), I(0), I(255), F(0.1), I(0), I(0), I(255),
           out=Out(u8, shape=[2]), **err)
    g.case("err_shape", op, T(torch.ones(2, dtype=u8)), F(0.1), I(0), I(0), I(255),
           T(torch.ones(3, dtype=u8)), F(0.1), I(0), I(0), I(255), F(0.1), I(0), I(0), I(255),
           out=Out(u8, shape=[2]), **err)
    g.case("err_dtype", op, T(torch.ones(2, dtype=u8)), F(0.1), I(0), I(0), I(255),
           T(torch.ones(2, dtype=i8)), F(0.1), I(0), I(0), I(255), F(0.1), I(0), I(0), I(255),
           out=Out(u8, shape=[2]), **err)
    g.case("err_out_scale", op, T(torch.ones(2, dtype=u8)), F(0.1), I(0), I(0), I(255),
           T(torch.ones(2, dtype=u8)), F(0.1), I(0), I(0), I(255), F(0.0), I(0), I(0), I(255),
           out=Out(u8, shape=[2]), **err)


def result_shape(op, args):
    """The result shape of a case, for the eager out (see Out.eager_shape)."""
    tensors = [a.t for a in args if isinstance(a, T)]
    name = op.split("::")[1].split(".")[0]
    if name.startswith("embedding_"):
        weight, indices = tensors[0], tensors[-1]
        per_byte = {"embedding_byte": 1, "embedding_4bit": 2, "embedding_2bit": 4}[name]
        return list(indices.shape) + [weight.shape[1] * per_byte]
    if name == "mixed_mm":
        return [tensors[0].shape[0], tensors[1].shape[1]]
    if name == "mixed_linear":
        return [tensors[0].shape[0], tensors[1].shape[0]]
    if name == "choose_qparams":
        return [1]
    if name == "choose_qparams_per_token_asymmetric":
        return list(tensors[0].shape[:-1]) + [1]
    return list(tensors[0].shape)


class _SizedOuts:
    """Sizes every eager out at the case's result shape."""

    def __init__(self, g):
        self.g = g

    def case(self, label, op, *args, out=None, **kw):
        if kw.get("error") is None:
            for o in (out if isinstance(out, list) else [out]):
                o.eager_shape = result_shape(op, args)
        return self.g.case(label, op, *args, out=out, **kw)


def cases(g):
    g = _SizedOuts(g)
    quantize_cases(g)
    dequantize_cases(g)
    choose_qparams_cases(g)
    embedding_cases(g)
    arith_cases(g)
