"""Golden cases for the elementwise, activation, comparison, logical,
creation and copy kernels (see gen_goldens.py)."""
import math

import torch

from gen_goldens import B, CHANNELS_LAST, F, I, IL, NONE, STR, Out, T, scalar

f32, f64, f16, bf16 = torch.float32, torch.float64, torch.float16, torch.bfloat16
i64, i32, i16, i8, u8, b8 = torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool


def rnd(shape, dtype=f32, lo=-4.0, hi=4.0):
    if dtype == b8:
        return torch.rand(shape) > 0.5
    if dtype.is_floating_point:
        return (torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo).to(dtype)
    return torch.randint(int(lo), int(hi) + 1, shape, dtype=dtype)


def pos(shape, dtype=f32):
    return rnd(shape, dtype, 0.1, 5.0)


def cl(t):
    """A 4-D tensor case argument in channels-last layout."""
    return T(t, dim_order=CHANNELS_LAST)


def cases(g):
    binary(g)
    scalar_ops(g)
    unary(g)
    activations(g)
    compare_logical(g)
    where_masked(g)
    reductions(g)
    creation(g)
    copies(g)
    errors(g)


def binary(g):
    shapes = [
        ("same", (3, 5), (3, 5)),
        ("bcast_row", (4, 6), (6,)),
        ("bcast_col", (4, 1), (1, 5)),
        ("bcast_3d", (2, 1, 4), (3, 1)),
        ("zero_dim", (3, 4), ()),
        ("zero_dim_lhs", (), (2, 3)),
        ("both_zero_dim", (), ()),
        ("empty", (0, 3), (0, 3)),
        ("long_run", (1027,), (1027,)),
    ]
    for op in ["add", "sub", "mul", "div"]:
        key = "aten::%s.out" % op
        alpha = [I(1)] if op in ("add", "sub") else []
        for label, sa, sb in shapes:
            a, b = rnd(sa), rnd(sb)
            if op == "div":
                b = torch.where(b.abs() < 0.5, torch.ones_like(b), b)
            g.case("f32_" + label, key, T(a), T(b), *alpha, out=Out(f32))
        for dt in [i64, i32, f64, f16, bf16]:
            a, b = rnd((4, 5), dt), rnd((5,), dt)
            if op == "div":
                b = torch.where(b == 0, torch.ones_like(b), b)
                g.case(str(dt).split(".")[1], key, T(a), T(b), *alpha,
                       out=Out(dt if dt.is_floating_point else f32))
            else:
                g.case(str(dt).split(".")[1], key, T(a), T(b), *alpha, out=Out(dt))
        # Channels-last operands and out, and a mixed-layout pair.
        a, b = rnd((2, 3, 4, 5)), rnd((2, 3, 4, 5))
        if op == "div":
            b = b.abs() + 0.5
        g.case("channels_last", key, cl(a), cl(b), *alpha, out=Out(f32, dim_order=CHANNELS_LAST))
        g.case("mixed_layout", key, cl(a), T(b), *alpha, out=Out(f32))
        g.case("cl_bcast_channel", key, cl(a), T(rnd((3, 1, 1)) + 5.0), *alpha,
               out=Out(f32, dim_order=CHANNELS_LAST))
        # Type promotion with out dtype authoritative.
        a, b = rnd((3, 4), i64), rnd((3, 4), f32)
        if op == "div":
            b = b.abs() + 0.5
        g.case("promote_i64_f32", key, T(a), T(b), *alpha, out=Out(f32))
        g.case("promote_f32_0dim_f64", key, T(rnd((3, 4))), T(torch.tensor(2.5, dtype=f64)), *alpha,
               out=Out(f32))
        g.case("promote_i32_0dim_i64", key, T(rnd((3, 4), i32)), T(torch.tensor(3, dtype=i64)),
               *alpha, out=Out(i32 if op != "div" else f32))
        g.case("f16_out_f32", key, T(rnd((3, 4), f16)), T(rnd((3, 4), f16) + 10), *alpha, out=Out(f32))
        # Dynamic out: allocated larger / smaller-shaped, must be resized.
        g.case("dynamic_out", key, T(rnd((2, 3))), T(rnd((2, 3)) + 10), *alpha,
               out=Out(f32, shape=(4, 5), dynamic=True))
        if op != "div":
            g.case("int_to_float_out", key, T(rnd((6,), i64)), T(rnd((6,), i64)), *alpha, out=Out(f32))
    for op in ["add", "sub"]:
        key = "aten::%s.out" % op
        g.case("alpha_f32", key, T(rnd((3, 4))), T(rnd((4,))), F(0.5), out=Out(f32))
        g.case("alpha_int", key, T(rnd((3, 4), i64)), T(rnd((4,), i64)), I(3), out=Out(i64))
        g.case("alpha_int_on_float", key, T(rnd((3, 4))), T(rnd((4,))), I(-2), out=Out(f32))
    g.case("bool", "aten::add.out", T(rnd((8,), b8)), T(rnd((8,), b8)), I(1), out=Out(b8))
    g.case("bool_plus_int", "aten::add.out", T(rnd((8,), b8)), T(rnd((8,), i64)), I(1), out=Out(i64))
    g.case("bool", "aten::mul.out", T(rnd((8,), b8)), T(rnd((8,), b8)), out=Out(b8))
    g.case("uint8_wrap", "aten::add.out", T(torch.tensor([250, 3, 128], dtype=u8)),
           T(torch.tensor([10, 3, 128], dtype=u8)), I(1), out=Out(u8))
    g.case("int8", "aten::mul.out", T(rnd((10,), i8)), T(rnd((10,), i8)), out=Out(i8))
    g.case("int16", "aten::sub.out", T(rnd((10,), i16)), T(rnd((10,), i16)), I(1), out=Out(i16))
    g.case("int_true_div", "aten::div.out", T(torch.tensor([7, -7, 1, 0], dtype=i64)),
           T(torch.tensor([2, 2, 3, 5], dtype=i64)), out=Out(f32))
    g.case("div_by_zero_float", "aten::div.out", T(torch.tensor([1.0, -1.0, 0.0])),
           T(torch.tensor([0.0, 0.0, 0.0])), out=Out(f32))
    for mode in ["trunc", "floor"]:
        a = torch.tensor([7.0, -7.0, 7.5, -7.5, 0.0, 5.0, -0.0])
        b = torch.tensor([2.0, 2.0, -2.0, -2.0, 3.0, -5.0, 1.0])
        g.case("f32_" + mode, "aten::div.out_mode", T(a), T(b), STR(mode), out=Out(f32))
        ai = torch.tensor([7, -7, 7, -7, 0, 5], dtype=i64)
        bi = torch.tensor([2, 2, -2, -2, 3, -5], dtype=i64)
        g.case("i64_" + mode, "aten::div.out_mode", T(ai), T(bi), STR(mode), out=Out(i64))
        g.case("i32_" + mode, "aten::div.out_mode", T(ai.to(i32)), T(bi.to(i32)), STR(mode), out=Out(i32))
        g.case("scalar_" + mode, "aten::div.Scalar_mode_out", T(a), F(-2.0), STR(mode), out=Out(f32))
    g.case("none", "aten::div.out_mode", T(rnd((3,))), T(pos((3,))), NONE, out=Out(f32))


def scalar_ops(g):
    for op, extra in [("add", [I(1)]), ("sub", [I(1)]), ("mul", []), ("div", [])]:
        key = "aten::%s.Scalar_out" % op
        g.case("f32_float", key, T(rnd((3, 4))), F(1.5), *extra, out=Out(f32))
        g.case("f32_int", key, T(rnd((3, 4))), I(3), *extra, out=Out(f32))
        g.case("i64_int", key, T(rnd((3, 4), i64)), I(3), *extra,
               out=Out(i64 if op != "div" else f32))
        g.case("i64_float", key, T(rnd((3, 4), i64)), F(0.5), *extra, out=Out(f32))
        g.case("f16", key, T(rnd((3, 4), f16)), F(2.0), *extra, out=Out(f16))
        g.case("zero_dim", key, T(torch.tensor(1.25)), F(2.0), *extra, out=Out(f32))
        g.case("channels_last", key, cl(rnd((2, 3, 2, 2))), F(-0.75), *extra,
               out=Out(f32, dim_order=CHANNELS_LAST))
        g.case("empty", key, T(rnd((0, 4))), F(2.0), *extra, out=Out(f32))
    g.case("alpha", "aten::add.Scalar_out", T(rnd((5,))), F(2.0), F(-0.5), out=Out(f32))
    g.case("bool_tensor_int_scalar", "aten::add.Scalar_out", T(rnd((5,), b8)), I(2), I(1), out=Out(i64))
    g.case("f32", "aten::rsub.Scalar_out", T(rnd((5,))), F(1.0), I(2), out=Out(f32))
    g.case("i64", "aten::rsub.Scalar_out", T(rnd((5,), i64)), I(10), I(1), out=Out(i64))
    key = "aten::pow.Tensor_Scalar_out"
    for e in [2, 3, 0.5, -0.5, -1, -2, 1.7, 0, 1]:
        base = pos((4, 5)) if isinstance(e, float) else rnd((4, 5))
        g.case("f32_exp_%s" % e, key, T(base), scalar(e), out=Out(f32))
    g.case("f32_exp_2_cl", key, cl(rnd((2, 3, 2, 2))), I(2), out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("i64_exp_3", key, T(rnd((6,), i64)), I(3), out=Out(i64))
    g.case("i32_exp_2", key, T(rnd((6,), i32)), I(2), out=Out(i32))
    g.case("i64_exp_float", key, T(rnd((6,), i64, 1, 5)), F(0.5), out=Out(f32))
    g.case("f16_exp_2", key, T(rnd((6,), f16)), F(2.0), out=Out(f16))
    g.case("f64", key, T(pos((6,), f64)), F(1.3), out=Out(f64))


def unary(g):
    ufuncs = {
        "exp": rnd, "log": pos, "sqrt": pos, "rsqrt": pos, "sin": rnd, "cos": rnd,
        "tanh": rnd, "sigmoid": rnd, "reciprocal": pos, "erf": rnd, "expm1": rnd,
        "log2": pos, "log10": pos, "log1p": pos, "tan": lambda s, d=f32: rnd(s, d, -1.2, 1.2),
    }
    for name, gen in ufuncs.items():
        key = "aten::%s.out" % name
        g.case("f32", key, T(gen((7, 9))), out=Out(f32), rtol=2e-5, atol=2e-6)
        g.case("f32_long", key, T(gen((1000,))), out=Out(f32), rtol=2e-5, atol=2e-6)
        g.case("zero_dim", key, T(gen(())), out=Out(f32), rtol=2e-5, atol=2e-6)
        g.case("empty", key, T(gen((0,))), out=Out(f32))
        g.case("channels_last", key, cl(gen((2, 3, 2, 4))), out=Out(f32, dim_order=CHANNELS_LAST),
               rtol=2e-5, atol=2e-6)
        g.case("f64", key, T(gen((5,), f64)), out=Out(f64))
        g.case("f16", key, T(gen((5,), f16)), out=Out(f16))
        g.case("bf16", key, T(gen((5,), bf16)), out=Out(bf16))
        g.case("i64_in", key, T(gen((5,), i64) if name not in ("log", "sqrt", "rsqrt", "reciprocal", "log2", "log10", "log1p") else rnd((5,), i64, 1, 9)),
               out=Out(f32), rtol=2e-5, atol=2e-6)
        g.case("bool_in", key, T(rnd((5,), b8)), out=Out(f32), rtol=2e-5, atol=2e-6)
    g.case("specials", "aten::exp.out", T(torch.tensor([0.0, -math.inf, math.inf, math.nan, 88.0, -104.0])), out=Out(f32))
    g.case("specials", "aten::sigmoid.out", T(torch.tensor([0.0, -math.inf, math.inf, -100.0, 100.0])), out=Out(f32))
    g.case("specials", "aten::log.out", T(torch.tensor([0.0, -1.0, math.inf, 1.0])), out=Out(f32))
    for name in ["neg", "abs"]:
        key = "aten::%s.out" % name
        for dt in [f32, f64, i64, i32, i8, f16, bf16]:
            g.case(str(dt).split(".")[1], key, T(rnd((3, 4), dt)), out=Out(dt))
        g.case("channels_last", key, cl(rnd((2, 3, 2, 2))), out=Out(f32, dim_order=CHANNELS_LAST))
        g.case("zero_dim", key, T(rnd(())), out=Out(f32))
        g.case("empty", key, T(rnd((2, 0))), out=Out(f32))
        g.case("dynamic_out", key, T(rnd((3, 4))), out=Out(f32, shape=(4, 4), dynamic=True))


def activations(g):
    for dt in [f32, f64, i64, f16, bf16]:
        g.case(str(dt).split(".")[1], "aten::relu.out", T(rnd((4, 6), dt)), out=Out(dt))
    g.case("channels_last", "aten::relu.out", cl(rnd((2, 4, 3, 3))), out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("nan", "aten::relu.out", T(torch.tensor([math.nan, -1.0, 2.0])), out=Out(f32))
    g.case("empty", "aten::relu.out", T(rnd((0, 2))), out=Out(f32))
    g.case("relu6", "aten::hardtanh.out", T(rnd((4, 6), f32, -8, 8)), I(0), I(6), out=Out(f32))
    g.case("default", "aten::hardtanh.out", T(rnd((4, 6))), F(-1.0), F(1.0), out=Out(f32))
    g.case("channels_last", "aten::hardtanh.out", cl(rnd((1, 3, 4, 4), f32, -8, 8)), F(0.0), F(6.0),
           out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("i64", "aten::hardtanh.out", T(rnd((8,), i64, -9, 9)), I(-2), I(3), out=Out(i64))
    g.case("f16", "aten::hardtanh.out", T(rnd((8,), f16, -9, 9)), F(0.0), F(6.0), out=Out(f16))
    key = "aten::clamp.out"
    g.case("both", key, T(rnd((5, 5))), F(-1.0), F(2.0), out=Out(f32))
    g.case("min_only", key, T(rnd((5, 5))), F(0.0), NONE, out=Out(f32))
    g.case("max_only", key, T(rnd((5, 5))), NONE, F(0.5), out=Out(f32))
    g.case("i64", key, T(rnd((9,), i64, -9, 9)), I(-3), I(4), out=Out(i64))
    g.case("i64_float_bounds", key, T(rnd((9,), i64, -9, 9)), F(-2.5), F(3.5), out=Out(f32))
    g.case("min_gt_max", key, T(rnd((5,))), F(2.0), F(1.0), out=Out(f32))
    g.case("nan", key, T(torch.tensor([math.nan, -5.0, 5.0])), F(-1.0), F(1.0), out=Out(f32))
    g.case("channels_last", key, cl(rnd((2, 3, 2, 2))), F(-1.0), F(1.0), out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("tensor_bounds", "aten::clamp.Tensor_out", T(rnd((3, 4))), T(rnd((4,), f32, -3, -1)),
           T(rnd((3, 1), f32, 1, 3)), out=Out(f32))
    g.case("tensor_min_only", "aten::clamp.Tensor_out", T(rnd((3, 4))), T(torch.tensor(0.0)), NONE, out=Out(f32))
    for approx in ["none", "tanh"]:
        key = "aten::gelu.out"
        g.case(approx, key, T(rnd((6, 50), f32, -6, 6)), STR(approx), out=Out(f32), rtol=2e-5, atol=2e-6)
        g.case(approx + "_f64", key, T(rnd((20,), f64, -6, 6)), STR(approx), out=Out(f64))
        g.case(approx + "_f16", key, T(rnd((20,), f16, -6, 6)), STR(approx), out=Out(f16))
        g.case(approx + "_bf16", key, T(rnd((20,), bf16, -6, 6)), STR(approx), out=Out(bf16))
        g.case(approx + "_cl", key, cl(rnd((1, 3, 4, 4))), STR(approx), out=Out(f32, dim_order=CHANNELS_LAST),
               rtol=2e-5, atol=2e-6)
        g.case(approx + "_empty", key, T(rnd((0,))), STR(approx), out=Out(f32))
    g.case("f32", "aten::silu.out", T(rnd((4, 33), f32, -8, 8)), out=Out(f32), rtol=2e-5, atol=2e-6)
    g.case("f16", "aten::silu.out", T(rnd((10,), f16)), out=Out(f16))
    g.case("f32", "aten::leaky_relu.out", T(rnd((4, 5))), F(0.1), out=Out(f32))


def compare_logical(g):
    for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
        kt, ks = "aten::%s.Tensor_out" % op, "aten::%s.Scalar_out" % op
        a = rnd((4, 5), f32, -2, 2).round()
        b = rnd((5,), f32, -2, 2).round()
        g.case("f32_bcast", kt, T(a), T(b), out=Out(b8))
        g.case("i64", kt, T(rnd((4, 5), i64, -2, 2)), T(rnd((4, 5), i64, -2, 2)), out=Out(b8))
        g.case("i32_vs_f32", kt, T(rnd((6,), i32, -2, 2)), T(rnd((6,), f32, -2, 2).round()), out=Out(b8))
        g.case("bool", kt, T(rnd((6,), b8)), T(rnd((6,), b8)), out=Out(b8))
        g.case("zero_dim", kt, T(a), T(torch.tensor(0.0)), out=Out(b8))
        g.case("cl", kt, cl(rnd((2, 3, 2, 2), f32, -1, 1).round()), cl(rnd((2, 3, 2, 2), f32, -1, 1).round()),
               out=Out(b8, dim_order=CHANNELS_LAST))
        g.case("out_f32", kt, T(a), T(b), out=Out(f32))
        g.case("f16", kt, T(a.to(f16)), T(b.to(f16)), out=Out(b8))
        g.case("empty", kt, T(rnd((0, 5))), T(b), out=Out(b8))
        g.case("f32", ks, T(a), F(0.0), out=Out(b8))
        g.case("f32_int_scalar", ks, T(a), I(1), out=Out(b8))
        g.case("i64_float_scalar", ks, T(rnd((8,), i64, -2, 2)), F(0.5), out=Out(b8))
        g.case("i64", ks, T(rnd((8,), i64, -2, 2)), I(1), out=Out(b8))
        g.case("bool", ks, T(rnd((8,), b8)), B(True), out=Out(b8))
        g.case("cl", ks, cl(rnd((1, 2, 3, 3), f32, -1, 1).round()), F(0.0), out=Out(b8, dim_order=CHANNELS_LAST))
    g.case("neg_inf", "aten::eq.Scalar_out", T(torch.tensor([-math.inf, 0.0, math.inf, math.nan])),
           F(-math.inf), out=Out(b8))
    g.case("nan", "aten::ne.Scalar_out", T(torch.tensor([math.nan, 0.0])), F(math.nan), out=Out(b8))
    key = "aten::logical_not.out"
    g.case("bool", key, T(rnd((3, 4), b8)), out=Out(b8))
    g.case("f32", key, T(torch.tensor([0.0, 1.5, -0.0, math.nan])), out=Out(b8))
    g.case("i64", key, T(rnd((6,), i64, -1, 1)), out=Out(b8))
    g.case("out_f32", key, T(rnd((6,), b8)), out=Out(f32))
    g.case("cl", key, cl(rnd((1, 2, 2, 3), b8)), out=Out(b8, dim_order=CHANNELS_LAST))
    g.case("zero_dim", key, T(torch.tensor(True)), out=Out(b8))
    for op in ["logical_and", "logical_or", "logical_xor"]:
        g.case("bool", "aten::%s.out" % op, T(rnd((3, 4), b8)), T(rnd((4,), b8)), out=Out(b8))
        g.case("f32", "aten::%s.out" % op, T(rnd((5,), f32, -1, 1).round()), T(rnd((5,), f32, -1, 1).round()),
               out=Out(b8))
    for op in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
        kt, ks = "aten::%s.Tensor_out" % op, "aten::%s.Scalar_out" % op
        g.case("bool", kt, T(rnd((3, 4), b8)), T(rnd((4,), b8)), out=Out(b8))
        g.case("i64", kt, T(rnd((3, 4), i64, -50, 50)), T(rnd((3, 4), i64, -50, 50)), out=Out(i64))
        g.case("i32_u8", kt, T(rnd((6,), i32, 0, 200)), T(rnd((6,), u8, 0, 200)), out=Out(i32))
        g.case("zero_dim", kt, T(rnd((5,), i64, 0, 100)), T(torch.tensor(6)), out=Out(i64))
        g.case("i64", ks, T(rnd((6,), i64, 0, 100)), I(12), out=Out(i64))
        g.case("bool", ks, T(rnd((6,), b8)), B(True), out=Out(b8))


def where_masked(g):
    key = "aten::where.self_out"
    c = rnd((3, 4), b8)
    g.case("f32", key, T(c), T(rnd((3, 4))), T(rnd((3, 4))), out=Out(f32))
    g.case("bcast3", key, T(rnd((3, 1), b8)), T(rnd((1, 4))), T(rnd((4,))), out=Out(f32))
    g.case("zero_dim_other", key, T(c), T(rnd((3, 4))), T(torch.tensor(-math.inf)), out=Out(f32))
    g.case("zero_dim_self", key, T(c), T(torch.tensor(0.0)), T(rnd((3, 4))), out=Out(f32))
    g.case("i64", key, T(c), T(rnd((3, 4), i64)), T(rnd((3, 4), i64)), out=Out(i64))
    g.case("bool_values", key, T(c), T(rnd((3, 4), b8)), T(rnd((3, 4), b8)), out=Out(b8))
    g.case("mixed_dtypes", key, T(c), T(rnd((3, 4), i64)), T(rnd((3, 4), f32)), out=Out(f32))
    g.case("f16", key, T(c), T(rnd((3, 4), f16)), T(rnd((3, 4), f16)), out=Out(f16))
    g.case("cond_u8", key, T(rnd((3, 4), u8, 0, 1)), T(rnd((3, 4))), T(rnd((3, 4))), out=Out(f32))
    g.case("cl", key, cl(rnd((2, 3, 2, 2), b8)), cl(rnd((2, 3, 2, 2))), cl(rnd((2, 3, 2, 2))),
           out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("empty", key, T(rnd((0, 4), b8)), T(rnd((0, 4))), T(rnd((0, 4))), out=Out(f32))
    g.case("dynamic_out", key, T(rnd((2, 1), b8)), T(rnd((1, 3))), T(rnd((2, 3))),
           out=Out(f32, shape=(8, 8), dynamic=True))
    key = "aten::masked_fill.Scalar_out"
    g.case("f32", key, T(rnd((3, 4))), T(rnd((3, 4), b8)), F(-math.inf), out=Out(f32))
    g.case("bcast_mask", key, T(rnd((3, 4))), T(rnd((4,), b8)), F(0.0), out=Out(f32))
    g.case("i64", key, T(rnd((3, 4), i64)), T(rnd((3, 1), b8)), I(7), out=Out(i64))


def reductions(g):
    x = rnd((3, 4, 5), f32, -1, 1).round().abs() > 0.5
    for label, args in [("dim1", [I(1), B(False)]), ("dim_neg_keep", [I(-1), B(True)]), ("dim0", [I(0), B(False)])]:
        g.case(label, "aten::any.out", T(x), *args, out=Out(b8))
        g.case(label, "aten::all.out", T(x), *args, out=Out(b8))
    g.case("f32_in", "aten::any.out", T(rnd((4, 6), f32, -1, 1).round()), I(1), B(False), out=Out(b8))
    g.case("cl", "aten::any.out", cl(rnd((2, 3, 2, 2), b8)), I(1), B(True), out=Out(b8))
    for label, dims, keep in [("none", NONE, False), ("list", IL([0, 2]), False), ("list_keep", IL([-1, 1]), True),
                              ("all_dims", IL([0, 1, 2]), False)]:
        g.case(label, "aten::any.dims_out", T(x), dims, B(keep), out=Out(b8))
        g.case(label, "aten::all.dims_out", T(x), dims, B(keep), out=Out(b8))
    g.case("f32", "aten::any.all_out", T(rnd((3, 3), f32, -1, 1).round()), out=Out(b8))
    g.case("zeros", "aten::any.all_out", T(torch.zeros(4)), out=Out(b8))
    g.case("empty", "aten::any.all_out", T(torch.zeros(0)), out=Out(b8))
    g.case("empty", "aten::all.all_out", T(torch.zeros(0)), out=Out(b8))
    g.case("bool", "aten::all.all_out", T(rnd((5,), b8)), out=Out(b8))
    g.case("u8", "aten::any.out", T(rnd((3, 4), u8, 0, 2)), I(1), B(False), out=Out(u8))


def creation(g):
    for dt, v in [(f32, F(2.5)), (i64, I(-3)), (b8, B(True)), (f16, F(0.5)), (i32, I(7)), (f64, F(-1.25)),
                  (bf16, F(3.0))]:
        name = str(dt).split(".")[1]
        g.case(name, "aten::scalar_tensor.out", v, out=Out(dt))
        g.case(name, "aten::full.out", IL([2, 3]), v, out=Out(dt))
        g.case(name, "aten::full_like.out", T(rnd((3, 2))), v, NONE, out=Out(dt))
    g.case("float_into_int", "aten::full.out", IL([3]), F(2.0), out=Out(i64))
    g.case("int_into_float", "aten::full.out", IL([2, 2]), I(4), out=Out(f32))
    g.case("neg_inf", "aten::full.out", IL([2, 2]), F(-math.inf), out=Out(f32))
    g.case("zero_dim", "aten::full.out", IL([]), F(1.0), out=Out(f32))
    g.case("empty", "aten::full.out", IL([0, 3]), F(1.0), out=Out(f32))
    g.case("dynamic_out", "aten::full.out", IL([2, 5]), F(1.0), out=Out(f32, shape=(4, 4), dynamic=True))
    g.case("cl", "aten::full_like.out", cl(rnd((1, 3, 2, 2))), F(1.0), NONE, out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("f32", "aten::zeros.out", IL([3, 2]), out=Out(f32))
    g.case("i64", "aten::ones.out", IL([4]), out=Out(i64))
    g.case("f32", "aten::fill.Scalar_out", T(rnd((2, 3))), F(9.0), out=Out(f32))


def copies(g):
    key = "dim_order_ops::_to_dim_order_copy.out"
    dts = [f32, i64, i32, b8, u8, f16, bf16, f64]
    for src in dts:
        for dst in dts:
            lo = 0 if u8 in (src, dst) else -3
            x = rnd((3, 4), src, lo, 3)
            g.case("%s_to_%s" % (str(src).split(".")[1], str(dst).split(".")[1]), key, T(x), B(False), NONE,
                   out=Out(dst))
    x = rnd((2, 3, 4, 5))
    g.case("to_channels_last", key, T(x), B(False), IL(CHANNELS_LAST), out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("from_channels_last", key, cl(x), B(False), IL([0, 1, 2, 3]), out=Out(f32))
    g.case("cl_f32_to_f16", key, cl(x), B(False), IL(CHANNELS_LAST), out=Out(f16, dim_order=CHANNELS_LAST))
    g.case("zero_dim_i64_to_f32", key, T(torch.tensor(3)), B(False), IL([]), out=Out(f32))
    g.case("empty", key, T(rnd((0, 2))), B(False), NONE, out=Out(i64))
    g.case("dynamic_out", key, T(rnd((2, 3))), B(False), NONE, out=Out(f32, shape=(5, 5), dynamic=True))
    g.case("float_to_int_trunc", key, T(torch.tensor([1.7, -1.7, 2.5, -0.2])), B(False), NONE, out=Out(i64))
    key = "dim_order_ops::_clone_dim_order.out"
    for dt in [f32, i64, b8, f16, bf16, u8]:
        g.case(str(dt).split(".")[1], key, T(rnd((3, 4), dt, 0, 5)), B(False), NONE, out=Out(dt))
    g.case("to_cl", key, T(x), B(False), IL(CHANNELS_LAST), out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("cl_to_contig", key, cl(x), B(False), IL([0, 1, 2, 3]), out=Out(f32))
    g.case("cl_keep", key, cl(x), B(False), NONE, out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("zero_dim", key, T(torch.tensor(2.0)), B(False), NONE, out=Out(f32))
    g.case("f32", "aten::clone.out", T(rnd((3, 3))), NONE, out=Out(f32))
    g.case("f32_to_i32", "aten::_to_copy.out", T(rnd((3, 3))), B(False), NONE, out=Out(i32))
    g.case("i64", "aten::alias_copy.out", T(rnd((2, 5), i64)), out=Out(i64))
    g.case("cl", "aten::alias_copy.out", cl(x), out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("bcast", "aten::copy.out", T(rnd((3, 4))), T(rnd((4,), i64)), B(False), out=Out(f32))
    g.case("same", "aten::copy_", T(torch.zeros(3, 4)), T(rnd((3, 4))), B(False))
    g.case("bcast_cast", "aten::copy_", T(torch.zeros(3, 4)), T(rnd((4,), i64)), B(False))
    g.case("i32_state", "aten::copy_", T(torch.zeros(5, dtype=i32)), T(rnd((5,), i32)), B(False))
    g.case("cl_self", "aten::copy_", cl(torch.zeros(2, 3, 4, 5)), T(x), B(False))


def errors(g):
    """Bad arguments: the kernel must fail the context, not abort."""
    a, b = rnd((2, 3)), rnd((4, 3))
    g.case("shapes_do_not_broadcast", "aten::add.out", T(a), T(b), I(1), out=Out(f32, shape=(2, 3)),
           error="InvalidArgument")
    g.case("static_out_wrong_shape", "aten::add.out", T(a), T(a), I(1), out=Out(f32, shape=(3, 3)),
           error="any")
    g.case("float_into_int_out", "aten::add.out", T(a), T(a), I(1), out=Out(i64, shape=(2, 3)),
           error="InvalidArgument")
    g.case("float_alpha_int_inputs", "aten::add.out", T(rnd((3,), i64)), T(rnd((3,), i64)), F(0.5),
           out=Out(i64, shape=(3,)), error="InvalidArgument")
    g.case("bool_sub", "aten::sub.out", T(rnd((3,), b8)), T(rnd((3,), b8)), I(1), out=Out(b8, shape=(3,)),
           error="InvalidArgument")
    g.case("int_out_for_true_div", "aten::div.out", T(rnd((3,), i64)), T(rnd((3,), i64)),
           out=Out(i64, shape=(3,)), error="InvalidArgument")
    g.case("bad_rounding_mode", "aten::div.out_mode", T(a), T(a), STR("round"), out=Out(f32, shape=(2, 3)),
           error="InvalidArgument")
    g.case("neg_dtype_mismatch", "aten::neg.out", T(a), out=Out(f64, shape=(2, 3)), error="InvalidArgument")
    g.case("int_out", "aten::exp.out", T(a), out=Out(i64, shape=(2, 3)), error="InvalidArgument")
    g.case("bad_approximate", "aten::gelu.out", T(a), STR("fast"), out=Out(f32, shape=(2, 3)),
           error="InvalidArgument")
    g.case("float_cond", "aten::where.self_out", T(a), T(a), T(a), out=Out(f32, shape=(2, 3)),
           error="InvalidArgument")
    g.case("dim_out_of_range", "aten::any.out", T(rnd((2, 3), b8)), I(2), B(False), out=Out(b8, shape=(2,)),
           error="InvalidArgument")
    g.case("neg_int_pow", "aten::pow.Tensor_Scalar_out", T(rnd((3,), i64)), I(-1), out=Out(i64, shape=(3,)),
           error="InvalidArgument")
    g.case("float_bitwise", "aten::bitwise_and.Tensor_out", T(a), T(a), out=Out(f32, shape=(2, 3)),
           error="InvalidArgument")
    g.case("dim_order_mismatch", "dim_order_ops::_to_dim_order_copy.out", T(rnd((1, 2, 2, 2))), B(False),
           IL(CHANNELS_LAST), out=Out(f32, shape=(1, 2, 2, 2)), error="InvalidArgument")
    g.case("clone_dtype_mismatch", "dim_order_ops::_clone_dim_order.out", T(a), B(False), NONE,
           out=Out(f16, shape=(2, 3)), error="InvalidArgument")
    g.case("int_div_by_zero", "aten::div.out_mode", T(rnd((3,), i64)), T(torch.zeros(3, dtype=i64)),
           STR("floor"), out=Out(i64, shape=(3,)), error="InvalidArgument")
    g.case("clamp_no_bounds", "aten::clamp.out", T(a), NONE, NONE, out=Out(f32, shape=(2, 3)),
           error="InvalidArgument")
