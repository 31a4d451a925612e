"""Golden cases of the operators registered before the goldens format had
tensor lists, several outs and ScalarType arguments: cat, stack, the split
and unbind copies, index, index_put(_), linear, max_pool2d_with_indices,
mean.dtype_out, native_layer_norm, batch norm without training,
squeeze_copy and _empty_dim_order (see gen_goldens.py).

    build/zoo-venv/bin/python test/kernels/gen_goldens.py --only existing \\
        --out test/fixtures/kernels_existing
"""
import torch

from gen_goldens import CHANNELS_LAST, B, DT, F, I, IL, NONE, Out, OutList, T, TL

from case_util import ALL, b8, bf16, f16, f32, f64, i8, i16, i32, i64, name, r, u8  # noqa: F401


def cases(g):
    lists(g)
    indexing(g)
    nn(g)
    misc(g)


def lists(g):
    key = "aten::cat.out"
    for dt in ALL:
        g.case(name(dt), key, TL([T(r(2, 3, dtype=dt)), T(r(4, 3, dtype=dt))]), I(0), out=Out(dt))
    g.case("dim1_three", key, TL([T(r(2, 1)), T(r(2, 3)), T(r(2, 2))]), I(1), out=Out(f32))
    g.case("negative_dim", key, TL([T(r(2, 2, 2)), T(r(2, 2, 1))]), I(-1), out=Out(f32))
    g.case("skips_empty_1d", key, TL([T(r(0)), T(r(2, 3))]), I(0), out=Out(f32))
    g.case("promote", key, TL([T(r(2, dtype=i32)), T(r(3))]), I(0), out=Out(f32))
    g.case("channels_last", key, TL([T(r(1, 2, 2, 2), CHANNELS_LAST), T(r(1, 3, 2, 2), CHANNELS_LAST)]),
           I(1), out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("shape_mismatch", key, TL([T(r(2, 3)), T(r(2, 4))]), I(0), out=Out(f32, shape=[4, 3]),
           error="InvalidArgument")

    key = "aten::stack.out"
    for dt in ALL:
        g.case(name(dt), key, TL([T(r(2, 3, dtype=dt)), T(r(2, 3, dtype=dt))]), I(0), out=Out(dt))
    g.case("last_dim", key, TL([T(r(2, 3)), T(r(2, 3)), T(r(2, 3))]), I(-1), out=Out(f32))
    g.case("zero_dim_items", key, TL([T(r()), T(r())]), I(0), out=Out(f32))
    g.case("shape_mismatch", key, TL([T(r(2, 3)), T(r(3, 2))]), I(0), out=Out(f32, shape=[2, 2, 3]),
           error="InvalidArgument")

    key = "aten::split_copy.Tensor_out"
    for dt in ALL:
        g.case_multi(name(dt), key, T(r(5, 2, dtype=dt)), I(2), I(0),
                     outs=OutList([Out(dt), Out(dt), Out(dt)]))
    g.case_multi("dim1", key, T(r(2, 6)), I(3), I(1), outs=OutList([Out(f32), Out(f32)]))
    g.case_multi("wrong_count", key, T(r(5, 2)), I(2), I(0),
                 outs=OutList([Out(f32, shape=[2, 2]), Out(f32, shape=[2, 2])]),
                 error="InvalidArgument")

    key = "aten::split_with_sizes_copy.out"
    for dt in ALL:
        g.case_multi(name(dt), key, T(r(2, 6, dtype=dt)), IL([1, 3, 2]), I(1),
                     outs=OutList([Out(dt), Out(dt), Out(dt)]))
    g.case_multi("zero_size_piece", key, T(r(4, 2)), IL([0, 4]), I(0),
                 outs=OutList([Out(f32), Out(f32)]))
    g.case_multi("sizes_do_not_add_up", key, T(r(4, 2)), IL([1, 2]), I(0),
                 outs=OutList([Out(f32, shape=[1, 2]), Out(f32, shape=[2, 2])]),
                 error="InvalidArgument")

    key = "aten::unbind_copy.int_out"
    for dt in ALL:
        g.case_multi(name(dt), key, T(r(3, 2, dtype=dt)), I(0),
                     outs=OutList([Out(dt), Out(dt), Out(dt)]))
    g.case_multi("dim1", key, T(r(2, 2, 3)), I(1), outs=OutList([Out(f32), Out(f32)]))
    g.case_multi("wrong_count", key, T(r(3, 2)), I(0),
                 outs=OutList([Out(f32, shape=[2]), Out(f32, shape=[2])]), error="InvalidArgument")


def indexing(g):
    key = "aten::index.Tensor_out"
    for dt in ALL:
        g.case(name(dt), key, T(r(5, 4, dtype=dt)), TL([T(torch.tensor([0, 4, 2, 2]))], optional=True),
               out=Out(dt))
    g.case("two_indices", key, T(r(4, 5)),
           TL([T(torch.tensor([0, 3])), T(torch.tensor([1, 4]))], optional=True), out=Out(f32))
    g.case("none_then_index", key, T(r(3, 5)), TL([None, T(torch.tensor([4, -1, 0]))], optional=True),
           out=Out(f32))
    g.case("bool_mask", key, T(r(4, 2)),
           TL([T(torch.tensor([True, False, True, True]))], optional=True),
           out=Out(f32, shape=[4, 2], dynamic=True))
    g.case("int32_index", key, T(r(4, 2)), TL([T(torch.tensor([1, 3], dtype=i32))], optional=True),
           out=Out(f32))
    g.case("out_of_range", key, T(r(4, 2)), TL([T(torch.tensor([4]))], optional=True),
           out=Out(f32, shape=[1, 2]), error="InvalidArgument")

    for key in ("aten::index_put.out", "aten::index_put_"):
        out = Out if key.endswith(".out") else (lambda dt, **kw: None)
        for dt in ALL:
            g.case(name(dt), key, T(r(5, 3, dtype=dt)), TL([T(torch.tensor([4, 0, 2]))], optional=True),
                   T(r(3, 3, dtype=dt)), B(False), out=out(dt))
        g.case("accumulate_repeats", key, T(torch.zeros(4)), TL([T(torch.tensor([1, 1, 3]))], optional=True),
               T(torch.ones(3)), B(True), out=out(f32))
        g.case("broadcast_value", key, T(r(4, 3)), TL([T(torch.tensor([0, 2]))], optional=True),
               T(r(3)), B(False), out=out(f32))
        g.case("kv_cache_slot", key, T(r(1, 6, 2)), TL([None, T(torch.tensor([3]))], optional=True),
               T(r(1, 1, 2)), B(False), out=out(f32))
        g.case("out_of_range", key, T(r(4)), TL([T(torch.tensor([4]))], optional=True), T(r(1)),
               B(False), out=Out(f32, shape=[4]) if key.endswith(".out") else None,
               error="InvalidArgument")


def nn(g):
    key = "aten::linear.out"
    for dt in (f32, f64, f16, bf16):
        low = dt in (f16, bf16)
        g.case(name(dt), key, T(r(3, 5, dtype=dt)), T(r(4, 5, dtype=dt)), T(r(4, dtype=dt)),
               out=Out(dt), rtol=3e-2 if low else 1e-4, atol=3e-2 if low else 1e-5)
    g.case("no_bias_3d", key, T(r(2, 3, 5)), T(r(4, 5)), NONE, out=Out(f32), rtol=1e-4, atol=1e-5)
    g.case("bad_inner", key, T(r(3, 5)), T(r(4, 6)), NONE, out=Out(f32, shape=[3, 4]),
           error="InvalidArgument")

    key = "aten::max_pool2d_with_indices.out"
    for dt in (f32, f64, f16, bf16, i64, i32, i16, i8, u8):
        g.case_multi(name(dt), key, T(r(1, 2, 6, 6, dtype=dt)), IL([2, 2]), IL([2, 2]), IL([0, 0]),
                     IL([1, 1]), B(False), outs=(Out(dt), Out(i64)))
    g.case_multi("pad_dilation_ceil", key, T(r(2, 3, 7, 8)), IL([3, 2]), IL([2, 1]), IL([1, 1]),
                 IL([1, 2]), B(True), outs=(Out(f32), Out(i64)))
    g.case_multi("rank3", key, T(r(2, 5, 5)), IL([3, 3]), IL([1, 1]), IL([1, 1]), IL([1, 1]),
                 B(False), outs=(Out(f32), Out(i64)))
    g.case_multi("pad_too_big", key, T(r(1, 1, 4, 4)), IL([2, 2]), IL([1, 1]), IL([2, 2]),
                 IL([1, 1]), B(False),
                 outs=(Out(f32, shape=[1, 1, 7, 7]), Out(i64, shape=[1, 1, 7, 7])),
                 error="InvalidArgument")

    key = "aten::native_layer_norm.out"
    for dt in (f32, f64, f16, bf16):
        low = dt in (f16, bf16)
        g.case_multi(name(dt), key, T(r(3, 4, 5, dtype=dt)), IL([5]), T(r(5, dtype=dt)),
                     T(r(5, dtype=dt)), F(1e-5), outs=(Out(dt), Out(dt), Out(dt)),
                     rtol=3e-2 if low else 1e-4, atol=3e-2 if low else 1e-5)
    g.case_multi("two_dims_no_affine", key, T(r(2, 3, 4)), IL([3, 4]), NONE, NONE, F(1e-5),
                 outs=(Out(f32), Out(f32), Out(f32)), rtol=1e-4, atol=1e-5)
    g.case_multi("shape_mismatch", key, T(r(2, 3)), IL([4]), NONE, NONE, F(1e-5),
                 outs=(Out(f32, shape=[2, 3]), Out(f32, shape=[2, 1]), Out(f32, shape=[2, 1])),
                 error="InvalidArgument")

    key = "aten::_native_batch_norm_legit_no_training.out"
    for dt in (f32, f64, f16, bf16):
        low = dt in (f16, bf16)
        var = (r(3).abs() + 0.5).to(dt)
        g.case_multi(name(dt), key, T(r(2, 3, 4, 4, dtype=dt)), T(r(3, dtype=dt)),
                     T(r(3, dtype=dt)), T(r(3, dtype=dt)), T(var), F(0.1), F(1e-5),
                     outs=(Out(dt), Out(dt), Out(dt)),
                     rtol=3e-2 if low else 1e-4, atol=3e-2 if low else 1e-5)
    g.case_multi("channels_last_no_affine", key, T(r(1, 3, 2, 2), CHANNELS_LAST), NONE, NONE,
                 T(r(3)), T(r(3).abs() + 0.5), F(0.1), F(1e-5),
                 outs=(Out(f32, dim_order=CHANNELS_LAST), Out(f32), Out(f32)), rtol=1e-4, atol=1e-5)
    g.case_multi("bad_mean", key, T(r(2, 3, 4)), NONE, NONE, T(r(4)), T(r(3)), F(0.1), F(1e-5),
                 outs=(Out(f32, shape=[2, 3, 4]), Out(f32, shape=[0]), Out(f32, shape=[0])),
                 error="InvalidArgument")


def misc(g):
    key = "aten::mean.dtype_out"
    for dt in (f32, f64, f16, bf16):
        g.case(name(dt), key, T(r(3, 4, dtype=dt)), NONE, out=Out(dt))
    g.case("dtype_f64", key, T(r(3, 4)), DT(f64), out=Out(f64))
    g.case("int_input", key, T(r(3, 4, dtype=i64)), DT(f32), out=Out(f32))
    g.case("dtype_mismatch", key, T(r(3)), DT(f64), out=Out(f32, shape=[]), error="InvalidArgument")

    key = "aten::squeeze_copy.out"
    for dt in ALL:
        g.case(name(dt), key, T(r(1, 3, 1, 2, dtype=dt)), out=Out(dt))
    g.case("zero_dim", key, T(r()), out=Out(f32))
    g.case("all_ones", key, T(r(1, 1)), out=Out(f32))

    # _empty_dim_order's values are uninitialized: only dtype and shape are compared. Eager
    # PyTorch cannot run it (it rejects the memory format it derives), so the shape comes
    # from torch.empty.
    key = "dim_order_ops::_empty_dim_order.out"
    for dt in (f32, i64, b8, f16):
        g.case_multi(name(dt), key, IL([2, 3]), NONE, outs=(Out(dt),), values=False,
                     reference=lambda size, order: [torch.empty(size)])
    g.case_multi("channels_last", key, IL([1, 3, 2, 2]), IL([0, 2, 3, 1]),
                 outs=(Out(f32, dim_order=CHANNELS_LAST),), values=False,
                 reference=lambda size, order: [torch.empty(size)])
    g.case_multi("dim_order_mismatch", key, IL([1, 3, 2, 2]), IL([0, 2, 3, 1]),
                 outs=(Out(f32, shape=[1, 3, 2, 2]),), error="InvalidArgument")
