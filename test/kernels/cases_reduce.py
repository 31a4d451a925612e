"""Golden cases of var.out, var_mean.correction_out, prod, max.dim, min.dim,
max.unary_out and min.unary_out (see gen_goldens.py).

    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only reduce \\
        --out test/fixtures/kernels_reduce
"""
import torch

from gen_goldens import CHANNELS_LAST, B, DT, F, I, IL, NONE, Out, T

from case_util import ALL, b8, bf16, f16, f32, f64, i8, i16, i32, i64, name, r, u8  # noqa: F401

LOW = {f16: (1e-2, 1e-2), bf16: (5e-2, 5e-2)}


def tol(dt):
    return LOW.get(dt, (None, None))


def cases(g):
    variance(g)
    product(g)
    extremes(g)


def variance(g):
    key = "aten::var.out"
    for dt in (f32, f64, f16, bf16):
        rtol, atol = tol(dt)
        g.case(name(dt), key, T(r(4, 6, dtype=dt)), IL([1]), B(True), B(False), out=Out(dt),
               rtol=rtol, atol=atol)
    g.case("biased_keepdim", key, T(r(3, 4, 5)), IL([0, 2]), B(False), B(True), out=Out(f32))
    g.case("all_dims", key, T(r(3, 4)), NONE, B(True), B(False), out=Out(f32))
    g.case("single_element_nan", key, T(r(1, 3)), IL([0]), B(True), B(False), out=Out(f32))
    g.case("channels_last", key, T(r(2, 3, 4, 4), CHANNELS_LAST), IL([2, 3]), B(True), B(False),
           out=Out(f32))
    g.case("int_input", key, T(r(3, 4, dtype=i64)), IL([1]), B(True), B(False),
           out=Out(f32, shape=[3]), error="InvalidArgument")
    g.case("dim_out_of_range", key, T(r(3, 4)), IL([2]), B(True), B(False),
           out=Out(f32, shape=[3]), error="InvalidArgument")

    key = "aten::var_mean.correction_out"
    for dt in (f32, f64, f16, bf16):
        rtol, atol = tol(dt)
        g.case_multi(name(dt), key, T(r(4, 6, dtype=dt)), IL([1]), I(1), B(False),
                     outs=(Out(dt), Out(dt)), rtol=rtol, atol=atol)
    g.case_multi("correction0_keepdim", key, T(r(3, 4, 5)), IL([1]), I(0), B(True),
                 outs=(Out(f32), Out(f32)))
    g.case_multi("float_correction", key, T(r(3, 8)), IL([-1]), F(2.5), B(False),
                 outs=(Out(f32), Out(f32)))
    g.case_multi("all_dims_default_correction", key, T(r(5, 3)), NONE, NONE, B(False),
                 outs=(Out(f32), Out(f32)))
    g.case_multi("empty_kept", key, T(r(0, 4)), IL([1]), I(1), B(False),
                 outs=(Out(f32), Out(f32)))
    g.case_multi("dim_twice", key, T(r(3, 4)), IL([1, 1]), I(1), B(False),
                 outs=(Out(f32, shape=[3]), Out(f32, shape=[3])), error="InvalidArgument")


def product(g):
    key = "aten::prod.out"
    ikey = "aten::prod.int_out"
    for dt in ALL:
        out_dt = i64 if dt in (b8, u8, i8, i16, i32, i64) else dt
        rtol, atol = tol(dt)
        x = r(2, 3, dtype=dt)
        if dt.is_floating_point:
            x = (x.float() * 0.5 + 1.0).to(dt)
        else:
            x = x if dt == b8 else (x % 5).to(dt)
        g.case(name(dt), key, T(x), NONE, out=Out(out_dt), rtol=rtol, atol=atol)
        g.case(name(dt), ikey, T(x), I(1), B(False), NONE, out=Out(out_dt), rtol=rtol, atol=atol)
    g.case("dtype_arg", key, T(r(4)), DT(f64), out=Out(f64))
    g.case("empty_is_one", key, T(r(0, 3)), NONE, out=Out(f32))
    g.case("overflow_wraps", key, T(torch.full((4,), 2**20, dtype=i64)), NONE, out=Out(i64))
    g.case("keepdim_dim0", ikey, T(r(3, 4)), I(0), B(True), NONE, out=Out(f32))
    g.case("empty_dim", ikey, T(r(2, 0)), I(1), B(False), NONE, out=Out(f32))
    g.case("channels_last", ikey, T(r(1, 3, 2, 2), CHANNELS_LAST), I(1), B(False), NONE,
           out=Out(f32))
    g.case("dtype_mismatch", key, T(r(4)), DT(f64), out=Out(f32, shape=[]),
           error="InvalidArgument")
    g.case("dim_out_of_range", ikey, T(r(3)), I(1), B(False), NONE, out=Out(f32, shape=[]),
           error="InvalidArgument")


def extremes(g):
    for op, outs in (("max", "dim_max"), ("min", "dim_min")):
        key = "aten::%s.%s" % (op, outs)
        for dt in ALL:
            x = r(4, 5, dtype=dt)
            g.case_multi(name(dt), key, T(x), I(1), B(False), outs=(Out(dt), Out(i64)))
        g.case_multi("keepdim_dim0", key, T(r(4, 5)), I(0), B(True), outs=(Out(f32), Out(i64)))
        g.case_multi("ties_first_index", key, T(torch.tensor([[1.0, 3.0, 3.0, -2.0, -2.0]])),
                     I(1), B(False), outs=(Out(f32), Out(i64)))
        g.case_multi("nan", key, T(torch.tensor([[1.0, float("nan"), 3.0, float("nan")]])), I(1),
                     B(False), outs=(Out(f32), Out(i64)))
        g.case_multi("zero_dim", key, T(torch.tensor(2.0)), I(0), B(False),
                     outs=(Out(f32), Out(i64)))
        g.case_multi("empty_kept", key, T(r(0, 3)), I(1), B(False), outs=(Out(f32), Out(i64)))
        g.case_multi("channels_last", key, T(r(1, 3, 2, 2), CHANNELS_LAST), I(1), B(False),
                     outs=(Out(f32), Out(i64)))
        g.case_multi("empty_reduced", key, T(r(3, 0)), I(1), B(False),
                     outs=(Out(f32, shape=[3]), Out(i64, shape=[3])), error="InvalidArgument")
        g.case_multi("indices_int32", key, T(r(3, 2)), I(1), B(False),
                     outs=(Out(f32, shape=[3]), Out(i32, shape=[3])), error="InvalidArgument")

        key = "aten::%s.unary_out" % op
        for dt in ALL:
            g.case(name(dt), key, T(r(3, 4, dtype=dt)), out=Out(dt))
        g.case("nan", key, T(torch.tensor([1.0, float("nan"), 2.0])), out=Out(f32))
        g.case("zero_dim", key, T(torch.tensor(-3.0)), out=Out(f32))
        g.case("empty", key, T(r(0)), out=Out(f32, shape=[]), error="InvalidArgument")
