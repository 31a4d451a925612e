"""Golden cases of scatter, scatter_add, select_scatter, slice_scatter,
masked_scatter, masked_select, nonzero, topk and repeat_interleave (see
gen_goldens.py).

    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only select \\
        --out test/fixtures/kernels_select
"""
import torch

from gen_goldens import CHANNELS_LAST, B, F, I, NONE, Out, T

from case_util import ALL, b8, bf16, f16, f32, f64, i8, i16, i32, i64, name, r, u8  # noqa: F401


def distinct(*shape, dtype=f32):
    """Values without ties (topk's order among equal values is unspecified)."""
    n = 1
    for s in shape:
        n *= s
    return (torch.randperm(n) - n // 2).reshape(shape).to(dtype)


def perm_index(rows, cols, size, dim=0):
    """A scatter index without repeats along dim (scatter with repeats is unspecified)."""
    if dim == 0:
        return torch.stack([torch.randperm(size)[:rows] for _ in range(cols)], dim=1)
    return torch.stack([torch.randperm(size)[:cols] for _ in range(rows)], dim=0)


def cases(g):
    scatter(g)
    slices(g)
    masked(g)
    nonzero(g)
    topk(g)
    repeat_interleave(g)


def scatter(g):
    key = "aten::scatter.src_out"
    vkey = "aten::scatter.value_out"
    akey = "aten::scatter_add.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(5, 4, dtype=dt)), I(0), T(perm_index(3, 4, 5)),
               T(r(3, 4, dtype=dt)), out=Out(dt))
        g.case(name(dt), vkey, T(r(5, 4, dtype=dt)), I(1), T(perm_index(5, 2, 4, dim=1)),
               I(1) if not dt.is_floating_point else F(2.5), out=Out(dt))
        g.case(name(dt), akey, T(r(5, 4, dtype=dt)), I(0),
               T(torch.randint(0, 5, (6, 4))), T(r(6, 4, dtype=dt)), out=Out(dt),
               rtol=2e-2 if dt in (f16, bf16) else None, atol=2e-2 if dt in (f16, bf16) else None)
    g.case("dim1_small_src", key, T(r(3, 6)), I(1), T(perm_index(2, 3, 6, dim=1)), T(r(4, 5)),
           out=Out(f32))
    g.case("negative_dim", key, T(r(3, 6)), I(-1), T(perm_index(3, 2, 6, dim=1)), T(r(3, 2)),
           out=Out(f32))
    g.case("3d", key, T(r(2, 5, 3)), I(1), T(torch.stack([perm_index(4, 3, 5)] * 2)),
           T(r(2, 4, 3)), out=Out(f32))
    g.case("empty_index", key, T(r(3, 4)), I(0), T(torch.zeros(0, 4, dtype=i64)), T(r(3, 4)),
           out=Out(f32))
    g.case("channels_last_self", key, T(r(1, 3, 2, 2), CHANNELS_LAST), I(1),
           T(torch.tensor([[[[2, 1], [0, 2]]]])), T(r(1, 1, 2, 2)), out=Out(f32))
    g.case("index_out_of_range", key, T(r(3, 4)), I(0), T(torch.tensor([[0, 3, 1, 2]])),
           T(r(1, 4)), out=Out(f32, shape=[3, 4]), error="InvalidArgument")
    g.case("negative_index", key, T(r(3, 4)), I(0), T(torch.tensor([[0, -1, 1, 2]])), T(r(1, 4)),
           out=Out(f32, shape=[3, 4]), error="InvalidArgument")
    g.case("index_int32", key, T(r(3, 4)), I(0), T(torch.tensor([[0, 1]], dtype=i32)),
           T(r(1, 2)), out=Out(f32, shape=[3, 4]), error="InvalidArgument")
    g.case("index_too_big", key, T(r(3, 4)), I(0), T(torch.zeros(2, 5, dtype=i64)), T(r(2, 5)),
           out=Out(f32, shape=[3, 4]), error="InvalidArgument")
    g.case("dim_out_of_range", key, T(r(3, 4)), I(2), T(torch.zeros(1, 1, dtype=i64)), T(r(1, 1)),
           out=Out(f32, shape=[3, 4]), error="InvalidArgument")
    g.case("src_dtype", key, T(r(3, 4)), I(0), T(torch.zeros(1, 1, dtype=i64)),
           T(r(1, 1, dtype=f64)), out=Out(f32, shape=[3, 4]), error="InvalidArgument")
    g.case("repeats_accumulate", akey, T(torch.zeros(3)), I(0), T(torch.tensor([0, 0, 2, 0, 2])),
           T(torch.ones(5)), out=Out(f32))
    g.case("dim1", akey, T(r(3, 4)), I(1), T(torch.randint(0, 4, (3, 6))), T(r(3, 6)),
           out=Out(f32))
    g.case("index_out_of_range", akey, T(r(3)), I(0), T(torch.tensor([3])), T(r(1)),
           out=Out(f32, shape=[3]), error="InvalidArgument")


def slices(g):
    key = "aten::select_scatter.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(3, 4, 5, dtype=dt)), T(r(3, 5, dtype=dt)), I(1), I(2),
               out=Out(dt))
    g.case("negative_index", key, T(r(3, 4)), T(r(3)), I(1), I(-1), out=Out(f32))
    g.case("rank1", key, T(r(5)), T(r()), I(0), I(3), out=Out(f32))
    g.case("channels_last", key, T(r(1, 3, 2, 2), CHANNELS_LAST), T(r(1, 2, 2)), I(1), I(0),
           out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("index_out_of_range", key, T(r(3, 4)), T(r(3)), I(1), I(4), out=Out(f32, shape=[3, 4]),
           error="InvalidArgument")
    g.case("src_shape", key, T(r(3, 4)), T(r(4)), I(1), I(0), out=Out(f32, shape=[3, 4]),
           error="InvalidArgument")

    key = "aten::slice_scatter.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(6, 4, dtype=dt)), T(r(2, 4, dtype=dt)), I(0), I(1), I(5), I(2),
               out=Out(dt))
    g.case("defaults", key, T(r(3, 4)), T(r(3, 4)), I(0), NONE, NONE, I(1), out=Out(f32))
    g.case("negative_bounds", key, T(r(3, 8)), T(r(3, 2)), I(1), I(-5), I(-1), I(2), out=Out(f32))
    g.case("end_beyond", key, T(r(3, 8)), T(r(3, 3)), I(-1), I(5), I(100), I(1), out=Out(f32))
    g.case("empty_slice", key, T(r(3, 8)), T(r(3, 0)), I(1), I(6), I(2), I(1), out=Out(f32))
    g.case("step0", key, T(r(3, 4)), T(r(3, 4)), I(0), NONE, NONE, I(0),
           out=Out(f32, shape=[3, 4]), error="InvalidArgument")
    g.case("src_shape", key, T(r(6, 4)), T(r(3, 4)), I(0), I(0), I(6), I(3),
           out=Out(f32, shape=[6, 4]), error="InvalidArgument")


def masked(g):
    key = "aten::masked_scatter.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(3, 4, dtype=dt)), T(r(3, 4, dtype=b8)), T(r(12, dtype=dt)),
               out=Out(dt))
    g.case("bcast_mask", key, T(r(2, 3, 4)), T(r(3, 1, dtype=b8)), T(r(5, 5)), out=Out(f32))
    g.case("all_false", key, T(r(3)), T(torch.zeros(3, dtype=b8)), T(r(0)), out=Out(f32))
    g.case("channels_last", key, T(r(1, 2, 2, 3), CHANNELS_LAST), T(r(1, 2, 2, 3, dtype=b8)),
           T(r(12)), out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("source_too_small", key, T(r(4)), T(torch.ones(4, dtype=b8)), T(r(3)),
           out=Out(f32, shape=[4]), error="InvalidArgument")
    g.case("mask_not_bool", key, T(r(4)), T(torch.ones(4, dtype=u8)), T(r(4)),
           out=Out(f32, shape=[4]), error="InvalidArgument")
    g.case("mask_grows_self", key, T(r(1, 4)), T(r(3, 4, dtype=b8)), T(r(12)),
           out=Out(f32, shape=[1, 4]), error="InvalidArgument")

    key = "aten::masked_select.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(3, 4, dtype=dt)), T(r(3, 4, dtype=b8)),
               out=Out(dt, shape=[12], dynamic=True))
    g.case("bcast_both", key, T(r(3, 1)), T(r(1, 4, dtype=b8)),
           out=Out(f32, shape=[12], dynamic=True))
    g.case("zero_dim", key, T(r()), T(torch.tensor(True)), out=Out(f32, shape=[1], dynamic=True))
    g.case("none_selected", key, T(r(3)), T(torch.zeros(3, dtype=b8)),
           out=Out(f32, shape=[3], dynamic=True))
    g.case("channels_last", key, T(r(1, 2, 2, 3), CHANNELS_LAST), T(r(1, 2, 2, 3, dtype=b8)),
           out=Out(f32, shape=[12], dynamic=True))
    # A static out of another shape cannot be resized: the resize's NotSupported.
    g.case("too_small_static", key, T(r(4)), T(torch.ones(4, dtype=b8)), out=Out(f32, shape=[2]),
           error="NotSupported")
    g.case("no_broadcast", key, T(r(3)), T(r(4, dtype=b8)), out=Out(f32, shape=[3]),
           error="InvalidArgument")


def nonzero(g):
    key = "aten::nonzero.out"
    for dt in ALL:
        t = r(3, 4, dtype=dt)
        t[0, 1] = 0
        g.case(name(dt), key, T(t), out=Out(i64, shape=[12, 2], dynamic=True))
    g.case("3d", key, T(r(2, 3, 2, dtype=b8)), out=Out(i64, shape=[12, 3], dynamic=True))
    g.case("zero_dim", key, T(torch.tensor(3.0)), out=Out(i64, shape=[1, 0], dynamic=True))
    g.case("zero_dim_zero", key, T(torch.tensor(0.0)), out=Out(i64, shape=[1, 0], dynamic=True))
    g.case("nan_is_nonzero", key, T(torch.tensor([0.0, float("nan"), -0.0])),
           out=Out(i64, shape=[3, 1], dynamic=True))
    g.case("empty", key, T(r(0, 3)), out=Out(i64, shape=[0, 2], dynamic=True))
    g.case("channels_last", key, T(r(1, 2, 2, 2, dtype=b8), CHANNELS_LAST),
           out=Out(i64, shape=[8, 4], dynamic=True))
    g.case("out_int32", key, T(r(3)), out=Out(i32, shape=[3, 1]), error="InvalidArgument")
    g.case("too_small_static", key, T(torch.ones(4)), out=Out(i64, shape=[2, 1]),
           error="NotSupported")


def topk(g):
    key = "aten::topk.values"
    for dt in (f32, f64, f16, bf16, i64, i32, i16, i8):
        for largest in (True, False):
            g.case_multi("%s_largest%d" % (name(dt), largest), key, T(distinct(3, 7, dtype=dt)),
                         I(3), I(-1), B(largest), B(True), outs=(Out(dt), Out(i64)))
    g.case_multi("u8", key, T(torch.randperm(9).to(u8)), I(4), I(0), B(True), B(True),
                 outs=(Out(u8), Out(i64)))
    g.case_multi("dim0", key, T(distinct(6, 3)), I(2), I(0), B(True), B(True),
                 outs=(Out(f32), Out(i64)))
    g.case_multi("k_all", key, T(distinct(2, 5)), I(5), I(1), B(False), B(True),
                 outs=(Out(f32), Out(i64)))
    g.case_multi("k0", key, T(distinct(2, 5)), I(0), I(1), B(True), B(True),
                 outs=(Out(f32), Out(i64)))
    g.case_multi("nan_largest", key, T(torch.tensor([1.0, float("nan"), 3.0, -1.0])), I(2), I(0),
                 B(True), B(True), outs=(Out(f32), Out(i64)))
    g.case_multi("nan_smallest", key, T(torch.tensor([1.0, float("nan"), 3.0, -1.0])), I(4), I(0),
                 B(False), B(True), outs=(Out(f32), Out(i64)))
    g.case_multi("zero_dim", key, T(torch.tensor(2.0)), I(1), I(0), B(True), B(True),
                 outs=(Out(f32), Out(i64)))
    g.case_multi("3d_middle", key, T(distinct(2, 5, 3)), I(2), I(1), B(True), B(True),
                 outs=(Out(f32), Out(i64)))
    g.case_multi("k_too_big", key, T(r(2, 3)), I(4), I(1), B(True), B(True),
                 outs=(Out(f32, shape=[2, 4]), Out(i64, shape=[2, 4])), error="InvalidArgument")
    g.case_multi("negative_k", key, T(r(2, 3)), I(-1), I(1), B(True), B(True),
                 outs=(Out(f32, shape=[2, 1]), Out(i64, shape=[2, 1])), error="InvalidArgument")
    g.case_multi("bad_dim", key, T(r(2, 3)), I(1), I(2), B(True), B(True),
                 outs=(Out(f32, shape=[2, 1]), Out(i64, shape=[2, 1])), error="InvalidArgument")
    g.case_multi("indices_int32", key, T(r(2, 3)), I(1), I(1), B(True), B(True),
                 outs=(Out(f32, shape=[2, 1]), Out(i32, shape=[2, 1])), error="InvalidArgument")


def repeat_interleave(g):
    key = "aten::repeat_interleave.Tensor_out"
    g.case("i64", key, T(torch.tensor([2, 0, 3, 1])), NONE, out=Out(i64, shape=[10], dynamic=True))
    g.case("i32", key, T(torch.tensor([1, 2], dtype=i32)), NONE,
           out=Out(i32, shape=[10], dynamic=True))
    g.case("output_size", key, T(torch.tensor([1, 3])), I(4), out=Out(i64))
    g.case("empty", key, T(torch.zeros(0, dtype=i64)), NONE, out=Out(i64, shape=[2], dynamic=True))
    g.case("negative", key, T(torch.tensor([1, -1])), NONE, out=Out(i64, shape=[2]),
           error="InvalidArgument")
    g.case("wrong_output_size", key, T(torch.tensor([1, 3])), I(3), out=Out(i64, shape=[4]),
           error="InvalidArgument")
    g.case("float_repeats", key, T(torch.tensor([1.0])), NONE, out=Out(f32, shape=[1]),
           error="InvalidArgument")
