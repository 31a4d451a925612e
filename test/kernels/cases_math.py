"""Golden cases of the second elementwise family: maximum/minimum, remainder,
fmod, floor_divide, atan2, bitwise ops and shifts, rounding, sign, isnan/isinf,
logit and the inverse/hyperbolic trig ufuncs (see gen_goldens.py).

    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only math \\
        --out test/fixtures/kernels_math
"""
import torch

from gen_goldens import CHANNELS_LAST, F, I, NONE, B, Out, T

from case_util import ALL, INTS, REAL_H, b8, bf16, f16, f32, f64, i32, i64, i8, name, u8


def rnd(shape, dtype=f32, lo=-4.0, hi=4.0):
    if dtype == b8:
        return torch.rand(shape) > 0.5
    if dtype.is_floating_point:
        return (torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo).to(dtype)
    if dtype == u8:
        lo = max(lo, 0)
    return torch.randint(int(lo), int(hi) + 1, shape, dtype=dtype)


def nonzero(shape, dtype):
    t = rnd(shape, dtype, 1, 5)
    if dtype != u8:
        sign = torch.where(torch.rand(shape) > 0.5, 1, -1)
        t = (t * sign.to(t.dtype)) if dtype != b8 else t
    return t


def cases(g):
    max_min(g)
    modulo(g)
    atan2(g)
    bitwise(g)
    rounding(g)
    classify(g)
    trig(g)


def max_min(g):
    for op in ("maximum", "minimum"):
        key = "aten::%s.out" % op
        for dt in ALL:
            g.case(name(dt), key, T(rnd((3, 4), dt)), T(rnd((3, 4), dt)), out=Out(dt))
        a = rnd((2, 3, 4))
        a[0, 1, 2] = float("nan")
        b = rnd((3, 1))
        b[1, 0] = float("nan")
        g.case("nan_bcast", key, T(a), T(b), out=Out(f32))
        g.case("promote_int_float", key, T(rnd((4, 3), i32)), T(rnd((3,), f16)), out=Out(f16))
        g.case("promote_out_f64", key, T(rnd((4, 3), i8)), T(rnd((4, 3), i64)), out=Out(f64))
        g.case("zero_dim", key, T(rnd(())), T(rnd(())), out=Out(f32))
        g.case("empty", key, T(rnd((0, 3))), T(rnd((1, 3))), out=Out(f32))
        g.case("channels_last", key, T(rnd((1, 3, 2, 2)), CHANNELS_LAST),
               T(rnd((1, 3, 2, 2)), CHANNELS_LAST), out=Out(f32, dim_order=CHANNELS_LAST))
        g.case("bad_out_dtype", key, T(rnd((2, 2))), T(rnd((2, 2))), out=Out(i32, shape=[2, 2]),
               error="InvalidArgument")
        g.case("no_broadcast", key, T(rnd((2, 3))), T(rnd((4,))), out=Out(f32, shape=[2, 3]),
               error="InvalidArgument")


def modulo(g):
    for op in ("remainder", "fmod"):
        key = "aten::%s.Tensor_out" % op
        skey = "aten::%s.Scalar_out" % op
        for dt in REAL_H:
            g.case(name(dt), key, T(rnd((3, 5), dt, -9, 9)), T(nonzero((3, 5), dt)), out=Out(dt))
            g.case("scalar_" + name(dt), skey, T(rnd((7,), dt, -9, 9)), I(3), out=Out(dt))
        g.case("scalar_neg", skey, T(rnd((7,), i32, -9, 9)), I(-4), out=Out(i32))
        g.case("scalar_float_on_int", skey, T(rnd((7,), i64, -9, 9)), F(2.5), out=Out(f32))
        g.case("scalar_minus_one", skey, T(torch.tensor([-2**63, 5, -7])), I(-1), out=Out(i64))
        g.case("float_zero_divisor", key, T(rnd((4,))), T(torch.zeros(4)), out=Out(f32))
        g.case("bcast", key, T(rnd((2, 3, 4), f32, -9, 9)), T(nonzero((4,), f32)), out=Out(f32))
        g.case("empty", key, T(rnd((0,))), T(rnd((0,))), out=Out(f32))
        g.case("int_zero_divisor", key, T(rnd((3,), i32)), T(torch.tensor([1, 0, 2], dtype=i32)),
               out=Out(i32, shape=[3]), error="InvalidArgument")
        g.case("bool_inputs", key, T(rnd((3,), b8)), T(rnd((3,), b8)), out=Out(b8, shape=[3]),
               error="InvalidArgument")
    fd = "aten::floor_divide.out"
    for dt in REAL_H:
        g.case(name(dt), fd, T(rnd((3, 5), dt, -9, 9)), T(nonzero((3, 5), dt)), out=Out(dt))
    g.case("bcast_promote", fd, T(rnd((2, 4), i32, -9, 9)), T(nonzero((4,), f32)), out=Out(f32))
    g.case("int_zero_divisor", fd, T(rnd((2,), i64)), T(torch.tensor([0, 1])),
           out=Out(i64, shape=[2]), error="InvalidArgument")


def atan2(g):
    key = "aten::atan2.out"
    for dt in (f32, f64, f16, bf16):
        g.case(name(dt), key, T(rnd((3, 4), dt)), T(rnd((3, 4), dt)), out=Out(dt))
    g.case("int_in_float_out", key, T(rnd((3, 4), i32)), T(rnd((4,), i64)), out=Out(f32))
    g.case("bool_in", key, T(rnd((3,), b8)), T(rnd((3,), b8)), out=Out(f32))
    g.case("zeros", key, T(torch.tensor([0.0, -0.0, 0.0, -0.0])),
           T(torch.tensor([0.0, 0.0, -0.0, -0.0])), out=Out(f32))
    g.case("int_out", key, T(rnd((2,))), T(rnd((2,))), out=Out(i32, shape=[2]),
           error="InvalidArgument")


def bitwise(g):
    for op in ("and", "or", "xor"):
        key = "aten::bitwise_%s.Tensor_out" % op
        skey = "aten::bitwise_%s.Scalar_out" % op
        for dt in INTS + (b8,):
            lo, hi = (-100, 100) if dt != u8 else (0, 255)
            g.case(name(dt), key, T(rnd((3, 4), dt, lo, hi)), T(rnd((4,), dt, lo, hi)), out=Out(dt))
        g.case("scalar_i32", skey, T(rnd((5,), i32, -100, 100)), I(0x35), out=Out(i32))
        g.case("scalar_bool", skey, T(rnd((5,), b8)), B(True), out=Out(b8))
        g.case("promote", key, T(rnd((5,), i8, -100, 100)), T(rnd((5,), i64, -999, 999)),
               out=Out(i64))
        g.case("float", key, T(rnd((2,))), T(rnd((2,))), out=Out(f32, shape=[2]),
               error="InvalidArgument")
    for op in ("left", "right"):
        key = "aten::bitwise_%s_shift.Tensor_out" % op
        skey = "aten::bitwise_%s_shift.Tensor_Scalar_out" % op
        for dt in INTS:
            lo = -100 if dt != u8 else 0
            bits = torch.iinfo(dt).bits
            g.case(name(dt), key, T(rnd((6,), dt, lo, 100)),
                   T(torch.tensor([0, 1, 3, bits - 1, bits, bits + 3], dtype=dt)), out=Out(dt))
            g.case("scalar_" + name(dt), skey, T(rnd((6,), dt, lo, 100)), I(2), out=Out(dt))
        g.case("bcast", key, T(rnd((3, 4), i32, -100, 100)), T(rnd((4,), i32, 0, 5)), out=Out(i32))
        g.case("float", key, T(rnd((2,))), T(rnd((2,))), out=Out(f32, shape=[2]),
               error="InvalidArgument")


def rounding(g):
    halves = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7, -3.7, float("inf"),
                           float("nan"), -0.0])
    for op in ("floor", "ceil", "trunc", "round"):
        key = "aten::%s.out" % op
        for dt in REAL_H:
            g.case(name(dt), key, T(rnd((3, 4), dt, -9, 9)), out=Out(dt))
        g.case("halves", key, T(halves), out=Out(f32))
        g.case("zero_dim", key, T(torch.tensor(2.5)), out=Out(f32))
        g.case("empty", key, T(rnd((0, 2))), out=Out(f32))
        g.case("channels_last", key, T(rnd((1, 2, 3, 3)), CHANNELS_LAST),
               out=Out(f32, dim_order=CHANNELS_LAST))
        g.case("bool", key, T(rnd((3,), b8)), out=Out(b8, shape=[3]), error="InvalidArgument")
        g.case("out_dtype", key, T(rnd((3,))), out=Out(f64, shape=[3]), error="InvalidArgument")
    key = "aten::sign.out"
    for dt in ALL:
        g.case(name(dt), key, T(rnd((3, 4), dt)), out=Out(dt))
    g.case("special", key, T(halves), out=Out(f32))
    key = "aten::bitwise_not.out"
    for dt in INTS + (b8,):
        g.case(name(dt), key, T(rnd((3, 4), dt, -100, 100)), out=Out(dt))
    g.case("float", key, T(rnd((2,))), out=Out(f32, shape=[2]), error="InvalidArgument")


def classify(g):
    special = torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), 0.0, -2.0])
    for op in ("isnan", "isinf"):
        key = "aten::%s.out" % op
        for dt in (f32, f64, f16, bf16):
            g.case(name(dt), key, T(special.to(dt)), out=Out(b8))
        for dt in (i64, i32, u8, b8):
            g.case(name(dt), key, T(rnd((4,), dt)), out=Out(b8))
        g.case("empty", key, T(rnd((0,))), out=Out(b8))
        g.case("out_not_bool", key, T(special), out=Out(f32, shape=[6]), error="InvalidArgument")
    key = "aten::logit.out"
    x = torch.tensor([0.0, 0.05, 0.3, 0.5, 0.9, 1.0, 1.2, -0.1])
    for dt in (f32, f64, f16, bf16):
        g.case(name(dt), key, T(x.to(dt)), NONE, out=Out(dt))
        g.case("eps_" + name(dt), key, T(x.to(dt)), F(0.1), out=Out(dt))
    g.case("negative_eps", key, T(x), F(-1.0), out=Out(f32))
    g.case("int_in", key, T(torch.tensor([0, 1, 2])), F(0.25), out=Out(f32))
    g.case("int_out", key, T(x), NONE, out=Out(i32, shape=[8]), error="InvalidArgument")


def trig(g):
    domains = {"asin": (-1, 1), "acos": (-1, 1), "atan": (-5, 5), "sinh": (-4, 4),
               "cosh": (-4, 4), "asinh": (-5, 5), "acosh": (1, 6), "atanh": (-0.99, 0.99)}
    for op, (lo, hi) in domains.items():
        key = "aten::%s.out" % op
        for dt in (f32, f64, f16, bf16):
            g.case(name(dt), key, T(rnd((3, 5), dt, lo, hi)), out=Out(dt))
        g.case("int_in", key, T(torch.tensor([0, 1, 2, -1])), out=Out(f32))
        g.case("out_of_domain", key, T(torch.tensor([-3.0, 3.0, float("nan")])), out=Out(f32))
        g.case("empty", key, T(rnd((0,))), out=Out(f32))
        g.case("int_out", key, T(rnd((2,))), out=Out(i64, shape=[2]), error="InvalidArgument")
