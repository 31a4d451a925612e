"""Golden cases of the remaining portable operators: pow (Tensor_Tensor and
Scalar overloads), elu, glu, fill.Tensor_out, empty.out, rand, randn,
native_dropout, _native_batch_norm_legit (.out, .no_stats_out),
_cdist_forward, _pdist_forward, _conj_physical, and the operators that are
registered only to fail with NotSupported (see gen_goldens.py).

    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only more \\
        --out test/fixtures/kernels_more
"""
import torch

from gen_goldens import BL, CHANNELS_LAST, B, F, I, IL, NONE, Out, T

from case_util import ALL, REAL_H, b8, bf16, f16, f32, f64, i8, i16, i32, i64, name, r, u8  # noqa: F401

LOW = {f16: (1e-2, 1e-2), bf16: (5e-2, 5e-2)}
FLOATS = (f32, f64, f16, bf16)


def tol(dt):
    return LOW.get(dt, (None, None))


def cases(g):
    power(g)
    activations(g)
    creation(g)
    random_ops(g)
    batch_norm(g)
    distances(g)
    not_supported(g)


def power(g):
    key = "aten::pow.Tensor_Tensor_out"
    for dt in REAL_H:
        base = r(3, 4, dtype=dt)
        exp = torch.randint(0, 4, (4,)).to(dt)
        if dt.is_floating_point:
            base = base.abs().to(dt)
            exp = (torch.rand(4) * 3).to(dt)
        rtol, atol = tol(dt)
        g.case(name(dt), key, T(base), T(exp), out=Out(dt), rtol=rtol, atol=atol)
    g.case("int_negative_exponent", key, T(torch.tensor([1, -1, -1, 2, 0, 3])),
           T(torch.tensor([-1, -1, -2, -1, 2, 0])), out=Out(i64))
    g.case("promote_int_float", key, T(torch.tensor([2, 3, 4])), T(torch.tensor([0.5, -1.0, 2.0])),
           out=Out(f32))
    g.case("nan_negative_base", key, T(torch.tensor([-2.0, float("nan"), 0.0])),
           T(torch.tensor([0.5, 1.0, -1.0])), out=Out(f32))
    g.case("empty", key, T(r(0, 3)), T(r(3)), out=Out(f32))
    g.case("out_bool", key, T(r(3)), T(r(3)), out=Out(b8, shape=[3]), error="InvalidArgument")

    key = "aten::pow.Scalar_out"
    for dt in REAL_H:
        exp = torch.randint(0, 4, (5,)).to(dt)
        rtol, atol = tol(dt)
        g.case(name(dt), key, I(2) if not dt.is_floating_point else F(1.5), T(exp), out=Out(dt),
               rtol=rtol, atol=atol)
    g.case("float_base_int_exp", key, F(2.5), T(torch.tensor([0, 1, 2, -1])), out=Out(f32))
    g.case("int_base_negative_exp", key, I(2), T(torch.tensor([-1, 0, 3])), out=Out(i64))
    g.case("zero_dim", key, F(3.0), T(torch.tensor(2.0)), out=Out(f32))
    g.case("float_base_int_out", key, F(2.5), T(torch.tensor([1, 2])), out=Out(i64, shape=[2]),
           error="InvalidArgument")


def activations(g):
    key = "aten::elu.out"
    for dt in FLOATS:
        rtol, atol = tol(dt)
        g.case(name(dt), key, T(r(3, 5, dtype=dt)), F(1.0), I(1), I(1), out=Out(dt), rtol=rtol,
               atol=atol)
    g.case("alpha_scale_input_scale", key, T(r(4, 4)), F(0.5), F(1.2), F(2.0), out=Out(f32))
    g.case("channels_last", key, T(r(1, 2, 3, 3), CHANNELS_LAST), F(1.0), I(1), I(1),
           out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("int", key, T(r(3, dtype=i32)), F(1.0), I(1), I(1), out=Out(i32, shape=[3]),
           error="InvalidArgument")

    key = "aten::glu.out"
    for dt in FLOATS:
        rtol, atol = tol(dt)
        g.case(name(dt), key, T(r(3, 6, dtype=dt)), I(-1), out=Out(dt), rtol=rtol, atol=atol)
    g.case("dim0", key, T(r(4, 3)), I(0), out=Out(f32))
    g.case("middle_dim", key, T(r(2, 4, 3)), I(1), out=Out(f32))
    g.case("channels_last", key, T(r(1, 4, 2, 2), CHANNELS_LAST), I(1), out=Out(f32))
    g.case("odd_size", key, T(r(3, 5)), I(1), out=Out(f32, shape=[3, 2]), error="InvalidArgument")
    g.case("zero_dim", key, T(r()), I(0), out=Out(f32, shape=[]), error="InvalidArgument")


def creation(g):
    key = "aten::fill.Tensor_out"
    for dt in ALL:
        g.case(name(dt), key, T(r(2, 3, dtype=dt)), T(r(dtype=dt)), out=Out(dt))
    g.case("float_value_int_self", key, T(r(4, dtype=i32)), T(torch.tensor(2.7)), out=Out(i32))
    g.case("int_value_float_self", key, T(r(4)), T(torch.tensor(7)), out=Out(f32))
    g.case("empty", key, T(r(0, 3)), T(torch.tensor(1.0)), out=Out(f32))
    g.case("value_not_0dim", key, T(r(3)), T(r(1)), out=Out(f32, shape=[3]),
           error="InvalidArgument")

    key = "aten::empty.out"
    for dt in ALL:
        g.case_multi(name(dt), key, IL([2, 3]), NONE, outs=(Out(dt),), values=False)
    g.case_multi("zero_dim", key, IL([]), NONE, outs=(Out(f32),), values=False)
    g.case_multi("empty", key, IL([0, 4]), NONE, outs=(Out(f32),), values=False)
    g.case_multi("static_mismatch", key, IL([2, 3]), NONE, outs=(Out(f32, shape=[3, 2]),),
                 error="NotSupported")


def random_ops(g):
    # Random values: only dtypes and shapes are compared (a property test would need the
    # distribution).
    for op in ("rand", "randn"):
        key = "aten::%s.out" % op
        for dt in FLOATS:
            g.case_multi(name(dt), key, IL([3, 4]), outs=(Out(dt),), values=False)
        g.case_multi("zero_dim", key, IL([]), outs=(Out(f32),), values=False)
        g.case_multi("int_out", key, IL([2]), outs=(Out(i64, shape=[2]),), error="InvalidArgument")

    key = "aten::native_dropout.out"
    for dt in FLOATS:
        # Without training, or with p = 0, the input passes through and the mask is all true.
        g.case_multi("eval_" + name(dt), key, T(r(3, 4, dtype=dt)), F(0.5), B(False),
                     outs=(Out(dt), Out(b8)))
        g.case_multi("p0_" + name(dt), key, T(r(3, 4, dtype=dt)), F(0.0), B(True),
                     outs=(Out(dt), Out(b8)))
    g.case_multi("p1_drops_all", key, T(r(3, 4)), F(1.0), B(True), outs=(Out(f32), Out(b8)))
    g.case_multi("random_half", key, T(r(3, 4)), F(0.5), B(True), outs=(Out(f32), Out(b8)),
                 values=False)
    g.case_multi("bad_p", key, T(r(3)), F(1.5), B(True),
                 outs=(Out(f32, shape=[3]), Out(b8, shape=[3])), error="InvalidArgument")
    g.case_multi("mask_not_bool", key, T(r(3)), F(0.5), B(True),
                 outs=(Out(f32, shape=[3]), Out(u8, shape=[3])), error="InvalidArgument")


def batch_norm(g):
    key = "aten::_native_batch_norm_legit.out"
    for dt in FLOATS:
        rtol, atol = (3e-2, 3e-2) if dt in (f16, bf16) else (1e-4, 1e-5)
        for training in (True, False):
            g.case_multi("%s_train%d" % (name(dt), training), key, T(r(2, 3, 4, 4, dtype=dt)),
                         T(r(3, dtype=dt)), T(r(3, dtype=dt)), T(r(3, dtype=dt)),
                         T((r(3).abs() + 0.5).to(dt)), B(training), F(0.1), F(1e-5),
                         outs=(Out(dt), Out(dt), Out(dt)), rtol=rtol, atol=atol)
    g.case_multi("train_rank2_no_affine", key, T(r(5, 3)), NONE, NONE, T(r(3)),
                 T(r(3).abs() + 0.5), B(True), F(0.1), F(1e-5),
                 outs=(Out(f32), Out(f32), Out(f32)), rtol=1e-4, atol=1e-5)
    g.case_multi("train_channels_last", key, T(r(2, 3, 2, 2), CHANNELS_LAST), T(r(3)), T(r(3)),
                 T(r(3)), T(r(3).abs() + 0.5), B(True), F(0.1), F(1e-5),
                 outs=(Out(f32, dim_order=CHANNELS_LAST), Out(f32), Out(f32)), rtol=1e-4,
                 atol=1e-5)
    g.case_multi("bad_running_mean", key, T(r(2, 3, 4)), NONE, NONE, T(r(4)), T(r(3)), B(True),
                 F(0.1), F(1e-5),
                 outs=(Out(f32, shape=[2, 3, 4]), Out(f32, shape=[3]), Out(f32, shape=[3])),
                 error="InvalidArgument")

    key = "aten::_native_batch_norm_legit.no_stats_out"
    for dt in FLOATS:
        rtol, atol = (3e-2, 3e-2) if dt in (f16, bf16) else (1e-4, 1e-5)
        g.case_multi(name(dt), key, T(r(2, 3, 5, dtype=dt)), T(r(3, dtype=dt)), T(r(3, dtype=dt)),
                     B(True), F(0.1), F(1e-5), outs=(Out(dt), Out(dt), Out(dt)), rtol=rtol,
                     atol=atol)
    g.case_multi("not_training", key, T(r(2, 3, 5)), NONE, NONE, B(False), F(0.1), F(1e-5),
                 outs=(Out(f32, shape=[2, 3, 5]), Out(f32, shape=[3]), Out(f32, shape=[3])),
                 error="InvalidArgument")


def distances(g):
    # Eager PyTorch's CPU cdist/pdist have no Half or BFloat16 kernels: those dtypes are covered
    # for the kernel library only by the float ones it shares the code with.
    key = "aten::_cdist_forward.out"
    for dt in (f32, f64):
        rtol, atol = (3e-2, 3e-2) if dt in (f16, bf16) else (1e-4, 1e-5)
        g.case(name(dt), key, T(r(4, 3, dtype=dt)), T(r(5, 3, dtype=dt)), F(2.0), NONE,
               out=Out(dt), rtol=rtol, atol=atol)
    for p in (0.0, 1.0, 3.0, float("inf")):
        g.case("p%g" % p, key, T(r(2, 4, 3)), T(r(2, 5, 3)), F(p), NONE, out=Out(f32), rtol=1e-4,
               atol=1e-5)
    g.case("batch_broadcast", key, T(r(1, 3, 2)), T(r(4, 2, 2)), F(2.0), I(0), out=Out(f32),
           rtol=1e-4, atol=1e-5)
    g.case("empty_rows", key, T(r(0, 3)), T(r(2, 3)), F(2.0), NONE, out=Out(f32))
    g.case("feature_mismatch", key, T(r(2, 3)), T(r(2, 4)), F(2.0), NONE,
           out=Out(f32, shape=[2, 2]), error="InvalidArgument")
    g.case("negative_p", key, T(r(2, 3)), T(r(2, 3)), F(-1.0), NONE, out=Out(f32, shape=[2, 2]),
           error="InvalidArgument")

    key = "aten::_pdist_forward.out"
    for dt in (f32, f64):
        rtol, atol = (3e-2, 3e-2) if dt in (f16, bf16) else (1e-4, 1e-5)
        g.case(name(dt), key, T(r(5, 3, dtype=dt)), F(2.0), out=Out(dt), rtol=rtol, atol=atol)
    for p in (0.0, 1.0, 3.0, float("inf")):
        g.case("p%g" % p, key, T(r(4, 3)), F(p), out=Out(f32), rtol=1e-4, atol=1e-5)
    g.case("one_row", key, T(r(1, 3)), F(2.0), out=Out(f32))
    g.case("rank3", key, T(r(2, 2, 2)), F(2.0), out=Out(f32, shape=[1]), error="InvalidArgument")

    key = "aten::_conj_physical.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(3, 2, dtype=dt)), out=Out(dt))


def not_supported(g):
    # Registered only to refuse by name (test/kernels/op_not_supported.txt).
    g.case_multi("refused", "aten::convolution_backward.out", T(r(1, 2, 3, 3)), T(r(1, 1, 5, 5)),
                 T(r(2, 1, 3, 3)), IL([2]), IL([1, 1]), IL([0, 0]), IL([1, 1]), B(False),
                 IL([0, 0]), I(1), BL([True, True, True]),
                 outs=(Out(f32, shape=[1, 1, 5, 5]), Out(f32, shape=[2, 1, 3, 3]),
                       Out(f32, shape=[2])), error="NotSupported")
    g.case("refused", "aten::max_pool2d_with_indices_backward.grad_input", T(r(1, 1, 2, 2)),
           T(r(1, 1, 4, 4)), IL([2, 2]), IL([2, 2]), IL([0, 0]), IL([1, 1]), B(False),
           T(torch.zeros(1, 1, 2, 2, dtype=i64)), out=Out(f32, shape=[1, 1, 4, 4]),
           error="NotSupported")
    for op in ("et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"):
        g.case("refused", op, T(r(3)), out=Out(f32, shape=[3]), error="NotSupported")
    g.case("refused", "aten::view_as_real_copy.out", T(r(3)), out=Out(f32, shape=[3, 2]),
           error="NotSupported")
