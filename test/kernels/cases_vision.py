"""Golden cases of upsample_nearest2d, upsample_bilinear2d (plain and
antialiased), native_group_norm and grid_sampler_2d (see gen_goldens.py).

    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only vision \\
        --out test/fixtures/kernels_vision
"""
import torch

from gen_goldens import CHANNELS_LAST, B, F, FL, I, IL, NONE, Out, T

from case_util import bf16, f16, f32, f64, i32, name, r, u8


def low_precision_tol(dt):
    return {f16: (1e-2, 1e-2), bf16: (5e-2, 5e-2)}.get(dt, (None, None))


def cases(g):
    upsample(g)
    group_norm(g)
    grid_sampler(g)
    upsample_aa(g)


def upsample(g):
    key = "aten::upsample_nearest2d.vec_out"
    # Eager PyTorch's nearest takes uint8 but no other integer dtype; the kernel takes them all
    # (it moves elements).
    for dt in (f32, f64, f16, bf16, u8):
        g.case(name(dt), key, T(r(2, 3, 4, 5, dtype=dt)), IL([8, 10]), NONE, out=Out(dt))
    g.case("downsample", key, T(r(1, 2, 9, 7)), IL([4, 3]), NONE, out=Out(f32))
    g.case("scale", key, T(r(1, 2, 3, 5)), NONE, FL([2.0, 1.5]), out=Out(f32))
    g.case("scale_fractional", key, T(r(1, 2, 7, 5)), NONE, FL([0.5, 1.7]), out=Out(f32))
    g.case("odd_sizes", key, T(r(1, 1, 3, 3)), IL([7, 5]), NONE, out=Out(f32))
    g.case("channels_last", key, T(r(1, 3, 4, 4), CHANNELS_LAST), IL([8, 6]), NONE,
           out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("empty_batch", key, T(r(0, 3, 4, 4)), IL([8, 8]), NONE, out=Out(f32))
    g.case("dynamic_out", key, T(r(1, 2, 2, 2)), IL([4, 4]), NONE,
           out=Out(f32, shape=[1, 2, 8, 8], dynamic=True))
    g.case("both_given", key, T(r(1, 1, 2, 2)), IL([4, 4]), FL([2.0, 2.0]),
           out=Out(f32, shape=[1, 1, 4, 4]), error="InvalidArgument")
    g.case("neither_given", key, T(r(1, 1, 2, 2)), NONE, NONE, out=Out(f32, shape=[1, 1, 4, 4]),
           error="InvalidArgument")
    g.case("rank3", key, T(r(1, 2, 2)), IL([4, 4]), NONE, out=Out(f32, shape=[1, 4, 4]),
           error="InvalidArgument")
    g.case("zero_size", key, T(r(1, 1, 2, 2)), IL([0, 4]), NONE, out=Out(f32, shape=[1, 1, 0, 4]),
           error="InvalidArgument")
    g.case("bad_output_size_len", key, T(r(1, 1, 2, 2)), IL([4]), NONE,
           out=Out(f32, shape=[1, 1, 4, 4]), error="InvalidArgument")

    key = "aten::upsample_bilinear2d.vec_out"
    for dt in (f32, f64, f16, bf16):
        rtol, atol = low_precision_tol(dt)
        for ac in (False, True):
            g.case("%s_align%d" % (name(dt), ac), key, T(r(2, 3, 4, 5, dtype=dt)), IL([7, 9]), B(ac),
                   NONE, out=Out(dt), rtol=rtol, atol=atol)
    g.case("downsample", key, T(r(1, 2, 9, 7)), IL([4, 3]), B(False), NONE, out=Out(f32))
    g.case("downsample_align", key, T(r(1, 2, 9, 7)), IL([4, 3]), B(True), NONE, out=Out(f32))
    g.case("scale", key, T(r(1, 2, 3, 5)), NONE, B(False), FL([2.0, 1.5]), out=Out(f32))
    g.case("scale_align", key, T(r(1, 2, 3, 5)), NONE, B(True), FL([2.5, 3.0]), out=Out(f32))
    g.case("to_one_pixel_align", key, T(r(1, 1, 4, 4)), IL([1, 1]), B(True), NONE, out=Out(f32))
    g.case("from_one_pixel", key, T(r(1, 1, 1, 1)), IL([3, 3]), B(False), NONE, out=Out(f32))
    g.case("channels_last", key, T(r(1, 3, 4, 4), CHANNELS_LAST), IL([8, 6]), B(False), NONE,
           out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("channels_last_in_only", key, T(r(1, 3, 4, 4), CHANNELS_LAST), IL([5, 6]), B(True), NONE,
           out=Out(f32))
    g.case("empty_batch", key, T(r(0, 3, 4, 4)), IL([8, 8]), B(False), NONE, out=Out(f32))
    g.case("negative_scale", key, T(r(1, 1, 2, 2)), NONE, B(False), FL([-2.0, 2.0]),
           out=Out(f32, shape=[1, 1, 4, 4]), error="InvalidArgument")
    g.case("out_dtype", key, T(r(1, 1, 2, 2)), IL([4, 4]), B(False), NONE,
           out=Out(f64, shape=[1, 1, 4, 4]), error="InvalidArgument")


def group_norm(g):
    key = "aten::native_group_norm.out"
    gn_outs = lambda dt: (Out(dt), Out(dt), Out(dt))  # noqa: E731
    for dt in (f32, f64, f16, bf16):
        rtol, atol = low_precision_tol(dt)
        g.case_multi(name(dt), key, T(r(2, 6, 4, 3, dtype=dt)), T(r(6, dtype=dt)),
                     T(r(6, dtype=dt)), I(2), I(6), I(12), I(3), F(1e-5), outs=gn_outs(dt),
                     rtol=rtol, atol=atol)
    g.case_multi("no_affine", key, T(r(3, 4, 5)), NONE, NONE, I(3), I(4), I(5), I(2), F(1e-5),
                 outs=gn_outs(f32), rtol=1e-4, atol=1e-5)
    g.case_multi("weight_only", key, T(r(2, 4, 2, 2)), T(r(4)), NONE, I(2), I(4), I(4), I(4),
                 F(1e-3), outs=gn_outs(f32), rtol=1e-4, atol=1e-5)
    g.case_multi("one_group", key, T(r(2, 8, 3)), T(r(8)), T(r(8)), I(2), I(8), I(3), I(1),
                 F(1e-5), outs=gn_outs(f32), rtol=1e-4, atol=1e-5)
    g.case_multi("rank2", key, T(r(3, 6)), T(r(6)), T(r(6)), I(3), I(6), I(1), I(3), F(1e-5),
                 outs=gn_outs(f32), rtol=1e-4, atol=1e-5)
    g.case_multi("bad_group", key, T(r(2, 6, 4)), NONE, NONE, I(2), I(6), I(4), I(4), F(1e-5),
                 outs=(Out(f32, shape=[2, 6, 4]), Out(f32, shape=[2, 4]), Out(f32, shape=[2, 4])),
                 error="InvalidArgument")
    g.case_multi("bad_hxw", key, T(r(2, 6, 4)), NONE, NONE, I(2), I(6), I(5), I(3), F(1e-5),
                 outs=(Out(f32, shape=[2, 6, 4]), Out(f32, shape=[2, 3]), Out(f32, shape=[2, 3])),
                 error="InvalidArgument")
    g.case_multi("bad_weight", key, T(r(2, 6, 4)), T(r(5)), NONE, I(2), I(6), I(4), I(3),
                 F(1e-5),
                 outs=(Out(f32, shape=[2, 6, 4]), Out(f32, shape=[2, 3]), Out(f32, shape=[2, 3])),
                 error="InvalidArgument")


def grid_sampler(g):
    key = "aten::grid_sampler_2d.out"
    # Grid points inside and outside [-1, 1], so every padding mode matters.
    for dt in (f32, f64):
        for interp in (0, 1, 2):
            for padding in (0, 1, 2):
                for ac in (False, True):
                    grid = (torch.rand(2, 3, 4, 2) * 2.6 - 1.3).to(dt)
                    g.case("%s_i%d_p%d_a%d" % (name(dt), interp, padding, ac), key,
                           T(r(2, 3, 5, 6, dtype=dt)), T(grid), I(interp), I(padding), B(ac),
                           out=Out(dt), rtol=1e-4, atol=1e-5)
    g.case("channels_last", key, T(r(1, 2, 4, 4), CHANNELS_LAST), T(torch.rand(1, 3, 3, 2) * 2 - 1),
           I(0), I(0), B(False), out=Out(f32), rtol=1e-4, atol=1e-5)
    g.case("empty_grid", key, T(r(1, 2, 4, 4)), T(torch.zeros(1, 0, 3, 2)), I(0), I(0), B(False),
           out=Out(f32))
    g.case("bad_mode", key, T(r(1, 1, 2, 2)), T(torch.zeros(1, 1, 1, 2)), I(3), I(0), B(False),
           out=Out(f32, shape=[1, 1, 1, 1]), error="InvalidArgument")
    g.case("bad_grid", key, T(r(1, 1, 2, 2)), T(torch.zeros(1, 1, 1, 3)), I(0), I(0), B(False),
           out=Out(f32, shape=[1, 1, 1, 1]), error="InvalidArgument")
    g.case("batch_mismatch", key, T(r(2, 1, 2, 2)), T(torch.zeros(1, 1, 1, 2)), I(0), I(0),
           B(False), out=Out(f32, shape=[2, 1, 1, 1]), error="InvalidArgument")


def upsample_aa(g):
    key = "aten::_upsample_bilinear2d_aa.out"
    for dt in (f32, f64):
        for ac in (False, True):
            g.case("down_%s_a%d" % (name(dt), ac), key, T(r(2, 3, 12, 10, dtype=dt)), IL([5, 3]),
                   B(ac), NONE, NONE, out=Out(dt), rtol=1e-4, atol=1e-5)
            g.case("up_%s_a%d" % (name(dt), ac), key, T(r(1, 2, 3, 4, dtype=dt)), IL([7, 9]),
                   B(ac), NONE, NONE, out=Out(dt), rtol=1e-4, atol=1e-5)
    g.case("scales", key, T(r(1, 2, 9, 9)), IL([3, 4]), B(False), F(1 / 3), F(0.45), out=Out(f32),
           rtol=1e-4, atol=1e-5)
    g.case("large_shrink", key, T(r(1, 1, 64, 40)), IL([2, 3]), B(False), NONE, NONE, out=Out(f32),
           rtol=1e-4, atol=1e-5)
    g.case("channels_last", key, T(r(1, 3, 6, 6), CHANNELS_LAST), IL([4, 4]), B(False), NONE, NONE,
           out=Out(f32, dim_order=CHANNELS_LAST), rtol=1e-4, atol=1e-5)
    g.case("int", key, T(r(1, 1, 4, 4, dtype=i32)), IL([2, 2]), B(False), NONE, NONE,
           out=Out(i32, shape=[1, 1, 2, 2]), error="InvalidArgument")
    g.case("shrink_too_far", key, T(r(1, 1, 1, 400)), IL([1, 2]), B(False), NONE, NONE,
           out=Out(f32, shape=[1, 1, 1, 2]), error="InvalidArgument")
