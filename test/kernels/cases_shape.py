"""Golden cases of the element-moving ops: flip, roll, pixel_shuffle/unshuffle,
tril, diagonal_copy, unfold_copy, as_strided_copy, detach_copy,
lift_fresh_copy and the reflection/replication pads (see gen_goldens.py).

    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only shape \\
        --out test/fixtures/kernels_shape
"""
import torch

from gen_goldens import CHANNELS_LAST, I, IL, NONE, Out, T

from case_util import ALL, b8, bf16, f16, f32, f64, i8, i16, i32, i64, name, r, u8  # noqa: F401


def cases(g):
    flip_roll(g)
    pixel_shuffle(g)
    triangular_diagonal(g)
    unfold_strided(g)
    plain_copies(g)
    pads(g)


def flip_roll(g):
    key = "aten::flip.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(2, 3, 4, dtype=dt)), IL([0, 2]), out=Out(dt))
    g.case("negative_dim", key, T(r(3, 4)), IL([-1]), out=Out(f32))
    g.case("no_dims", key, T(r(3, 4)), IL([]), out=Out(f32))
    g.case("zero_dim", key, T(r()), IL([]), out=Out(f32))
    g.case("empty", key, T(r(0, 4)), IL([0, 1]), out=Out(f32))
    g.case("channels_last", key, T(r(2, 3, 4, 5), CHANNELS_LAST), IL([1, 3]),
           out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("channels_last_in_contiguous_out", key, T(r(2, 3, 4, 5), CHANNELS_LAST), IL([2]),
           out=Out(f32))
    g.case("dim_out_of_range", key, T(r(3, 4)), IL([2]), out=Out(f32, shape=[3, 4]),
           error="InvalidArgument")
    g.case("dim_twice", key, T(r(3, 4)), IL([1, -1]), out=Out(f32, shape=[3, 4]),
           error="InvalidArgument")
    g.case("out_dtype", key, T(r(3, 4)), IL([0]), out=Out(f64, shape=[3, 4]),
           error="InvalidArgument")

    key = "aten::roll.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(3, 5, dtype=dt)), IL([1, -2]), IL([0, 1]), out=Out(dt))
    g.case("flattened", key, T(r(3, 4)), IL([5]), IL([]), out=Out(f32))
    g.case("flattened_negative", key, T(r(2, 3, 2)), IL([-7]), IL([]), out=Out(f32))
    g.case("shift_beyond_size", key, T(r(4, 3)), IL([9]), IL([0]), out=Out(f32))
    g.case("same_dim_twice", key, T(r(6,)), IL([1, 2]), IL([0, 0]), out=Out(f32))
    g.case("empty", key, T(r(0, 3)), IL([1]), IL([1]), out=Out(f32))
    g.case("empty_flattened", key, T(r(0, 3)), IL([1]), IL([]), out=Out(f32))
    g.case("channels_last", key, T(r(1, 3, 4, 4), CHANNELS_LAST), IL([1, 2]), IL([2, 3]),
           out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("length_mismatch", key, T(r(3, 4)), IL([1, 2]), IL([0]), out=Out(f32, shape=[3, 4]),
           error="InvalidArgument")
    g.case("dim_out_of_range", key, T(r(3, 4)), IL([1]), IL([5]), out=Out(f32, shape=[3, 4]),
           error="InvalidArgument")


def pixel_shuffle(g):
    key = "aten::pixel_shuffle.out"
    ukey = "aten::pixel_unshuffle.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(2, 8, 3, 2, dtype=dt)), I(2), out=Out(dt))
        g.case(name(dt), ukey, T(r(2, 2, 6, 4, dtype=dt)), I(2), out=Out(dt))
    g.case("rank3", key, T(r(9, 2, 3)), I(3), out=Out(f32))
    g.case("rank5", key, T(r(2, 1, 4, 2, 2)), I(2), out=Out(f32))
    g.case("factor1", key, T(r(1, 3, 2, 2)), I(1), out=Out(f32))
    g.case("empty_batch", key, T(r(0, 4, 2, 2)), I(2), out=Out(f32))
    g.case("channels_last", key, T(r(1, 8, 3, 3), CHANNELS_LAST), I(2), out=Out(f32))
    g.case("bad_channels", key, T(r(1, 6, 2, 2)), I(2), out=Out(f32, shape=[1, 1, 4, 4]),
           error="InvalidArgument")
    g.case("zero_factor", key, T(r(1, 4, 2, 2)), I(0), out=Out(f32, shape=[1, 4, 2, 2]),
           error="InvalidArgument")
    g.case("rank2", key, T(r(4, 4)), I(2), out=Out(f32, shape=[4, 4]), error="InvalidArgument")
    g.case("rank3", ukey, T(r(1, 6, 9)), I(3), out=Out(f32))
    g.case("channels_last", ukey, T(r(1, 3, 4, 4), CHANNELS_LAST), I(2), out=Out(f32))
    g.case("bad_size", ukey, T(r(1, 2, 5, 4)), I(2), out=Out(f32, shape=[1, 8, 2, 2]),
           error="InvalidArgument")


def triangular_diagonal(g):
    key = "aten::tril.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(4, 5, dtype=dt)), I(0), out=Out(dt))
    for k in (-2, 1, 7, -9):
        g.case("diag_%d" % k, key, T(r(2, 4, 5)), I(k), out=Out(f32))
    g.case("empty", key, T(r(0, 3)), I(0), out=Out(f32))
    g.case("rank1", key, T(r(3)), I(0), out=Out(f32, shape=[3]), error="InvalidArgument")

    key = "aten::diagonal_copy.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(4, 5, dtype=dt)), I(0), I(0), I(1), out=Out(dt))
    g.case("offset_pos", key, T(r(3, 4, 5)), I(2), I(1), I(2), out=Out(f32))
    g.case("offset_neg", key, T(r(3, 4, 5)), I(-1), I(0), I(2), out=Out(f32))
    g.case("swapped_dims", key, T(r(3, 4, 5)), I(0), I(2), I(0), out=Out(f32))
    g.case("offset_beyond", key, T(r(3, 4)), I(9), I(0), I(1), out=Out(f32))
    g.case("offset_far_negative", key, T(r(3, 4)), I(-9), I(0), I(1), out=Out(f32))
    g.case("same_dim", key, T(r(3, 4)), I(0), I(1), I(-1), out=Out(f32, shape=[3]),
           error="InvalidArgument")
    g.case("dim_out_of_range", key, T(r(3, 4)), I(0), I(0), I(2), out=Out(f32, shape=[3]),
           error="InvalidArgument")


def unfold_strided(g):
    key = "aten::unfold_copy.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(3, 7, dtype=dt)), I(1), I(3), I(2), out=Out(dt))
    g.case("dim0", key, T(r(6, 2)), I(0), I(2), I(3), out=Out(f32))
    g.case("negative_dim", key, T(r(2, 5)), I(-1), I(5), I(1), out=Out(f32))
    g.case("size0", key, T(r(2, 4)), I(1), I(0), I(1), out=Out(f32))
    g.case("zero_dim", key, T(r()), I(0), I(1), I(1), out=Out(f32))
    g.case("size_too_big", key, T(r(2, 4)), I(1), I(5), I(1), out=Out(f32, shape=[2, 1, 5]),
           error="InvalidArgument")
    g.case("step0", key, T(r(2, 4)), I(1), I(2), I(0), out=Out(f32, shape=[2, 1, 2]),
           error="InvalidArgument")

    key = "aten::as_strided_copy.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(4, 5, dtype=dt)), IL([3, 3]), IL([5, 1]), NONE, out=Out(dt))
    g.case("offset", key, T(r(20)), IL([2, 3]), IL([1, 4]), I(3), out=Out(f32))
    g.case("overlapping", key, T(r(10)), IL([4, 3]), IL([1, 1]), I(0), out=Out(f32))
    g.case("zero_stride", key, T(r(3)), IL([2, 3]), IL([0, 1]), NONE, out=Out(f32))
    g.case("empty", key, T(r(3)), IL([0, 3]), IL([1, 1]), NONE, out=Out(f32))
    g.case("out_of_bounds", key, T(r(6)), IL([2, 3]), IL([3, 2]), NONE,
           out=Out(f32, shape=[2, 3]), error="InvalidArgument")
    g.case("negative_offset", key, T(r(6)), IL([2]), IL([1]), I(-1), out=Out(f32, shape=[2]),
           error="InvalidArgument")


def plain_copies(g):
    for op in ("detach_copy", "lift_fresh_copy"):
        key = "aten::%s.out" % op
        for dt in ALL:
            g.case(name(dt), key, T(r(3, 4, dtype=dt)), out=Out(dt))
        g.case("zero_dim", key, T(r()), out=Out(f32))
        g.case("empty", key, T(r(0, 2)), out=Out(f32))
        g.case("channels_last", key, T(r(1, 2, 3, 3), CHANNELS_LAST), out=Out(f32))
        g.case("out_dtype", key, T(r(3)), out=Out(f64, shape=[3]), error="InvalidArgument")


def pads(g):
    specs = {1: ([2, 1], (2, 5), (2, 3, 5)), 2: ([1, 2, 2, 0], (2, 4, 5), (1, 2, 4, 5)),
             3: ([1, 0, 2, 1, 0, 2], (2, 3, 4, 5), (1, 2, 3, 4, 5))}
    for kind in ("reflection", "replication"):
        for n, (padding, small, big) in specs.items():
            key = "aten::%s_pad%dd.out" % (kind, n)
            # Eager PyTorch has no bool pads; the kernels take bool too (byte moves).
            for dt in ALL[:-1]:
                g.case(name(dt), key, T(r(*big, dtype=dt)), IL(padding), out=Out(dt))
            g.case("unbatched", key, T(r(*small)), IL(padding), out=Out(f32))
            g.case("negative_pad", key, T(r(*big)),
                   IL([-1] + padding[1:]), out=Out(f32))
            g.case("zero_pad", key, T(r(*big)), IL([0] * (2 * n)), out=Out(f32))
            g.case("bad_rank", key, T(r(*([3] * (n + 3)))), IL(padding),
                   out=Out(f32, shape=[1]), error="InvalidArgument")
            g.case("bad_padding_len", key, T(r(*big)), IL(padding + [1, 1]),
                   out=Out(f32, shape=[1]), error="InvalidArgument")
        g.case("channels_last", "aten::%s_pad2d.out" % kind, T(r(1, 3, 4, 4), CHANNELS_LAST),
               IL([1, 1, 2, 2]), out=Out(f32, dim_order=CHANNELS_LAST))
        g.case("empty_batch", "aten::%s_pad2d.out" % kind, T(r(0, 2, 3, 3)), IL([1, 1, 1, 1]),
               out=Out(f32))
    g.case("pad_too_big", "aten::reflection_pad1d.out", T(r(1, 3)), IL([3, 0]),
           out=Out(f32, shape=[1, 6]), error="InvalidArgument")
    g.case("pad_equal_size_minus1", "aten::reflection_pad1d.out", T(r(1, 3)), IL([2, 2]),
           out=Out(f32))
    g.case("empty_dim", "aten::replication_pad1d.out", T(r(2, 0)), IL([1, 1]),
           out=Out(f32, shape=[2, 2]), error="InvalidArgument")
    g.case("large_pad", "aten::replication_pad1d.out", T(r(1, 2)), IL([6, 5]), out=Out(f32))
