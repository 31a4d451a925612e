"""Golden cases of K2's operator families (matrix, convolution, pooling,
normalization, softmax, reductions, shape/copy, indexing, factory) for
gen_goldens.py. Ops whose outs are tensor lists or several tensors
(max_pool2d_with_indices, batch/layer norm, cat, split, index, index_put)
are covered by test/unit/kernels_nn/ and the zoo test instead."""
import torch

from gen_goldens import B, F, I, IL, NONE, Out, T, CHANNELS_LAST

f32 = torch.float32


def r(*shape, dtype=f32):
    if dtype.is_floating_point:
        return torch.randn(shape).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    return torch.randint(-5, 6, shape, dtype=dtype)


def cases(g):
    # --- matrix ops (compute-core SGEMM for float32) ---
    for dt in (f32, torch.float64, torch.float16, torch.bfloat16, torch.int64):
        name = str(dt).split(".")[-1]
        g.case("mm_" + name, "aten::mm.out", T(r(5, 7, dtype=dt)), T(r(7, 3, dtype=dt)), out=Out(dt),
               rtol=2e-2 if dt in (torch.float16, torch.bfloat16) else None,
               atol=2e-2 if dt in (torch.float16, torch.bfloat16) else None)
    g.case("mm_big", "aten::mm.out", T(r(67, 129)), T(r(129, 45)), out=Out(f32), rtol=1e-4, atol=1e-4)
    g.case("mm_empty_k", "aten::mm.out", T(r(3, 0)), T(r(0, 4)), out=Out(f32))
    g.case("mm_dynamic", "aten::mm.out", T(r(2, 3)), T(r(3, 4)), out=Out(f32, shape=[4, 4], dynamic=True))
    g.case("mm_bad_shape", "aten::mm.out", T(r(2, 3)), T(r(4, 4)), out=Out(f32, shape=[2, 4]),
           error="InvalidArgument")
    g.case("bmm", "aten::bmm.out", T(r(3, 4, 5)), T(r(3, 5, 6)), out=Out(f32))
    g.case("bmm_f64", "aten::bmm.out", T(r(2, 4, 5, dtype=torch.float64)),
           T(r(2, 5, 3, dtype=torch.float64)), out=Out(torch.float64))
    g.case("addmm_row_bias", "aten::addmm.out", T(r(6)), T(r(4, 5)), T(r(5, 6)), I(1), I(1), out=Out(f32))
    g.case("addmm_beta_alpha", "aten::addmm.out", T(r(4, 6)), T(r(4, 5)), T(r(5, 6)), F(0.5), F(2.0),
           out=Out(f32))
    g.case("addmm_col_bias", "aten::addmm.out", T(r(4, 1)), T(r(4, 5)), T(r(5, 6)), I(1), I(1), out=Out(f32))
    g.case("addmm_scalar_bias", "aten::addmm.out", T(r()), T(r(4, 5)), T(r(5, 6)), I(1), I(1), out=Out(f32))
    g.case("addmm_beta0_nan", "aten::addmm.out", T(torch.full((6,), float("nan"))), T(r(4, 5)),
           T(r(5, 6)), I(0), I(1), out=Out(f32))

    # --- convolution ---
    conv = "aten::convolution.out"
    g.case("conv2d", conv, T(r(2, 3, 9, 8)), T(r(4, 3, 3, 3)), T(r(4)), IL([1, 1]), IL([1, 1]),
           IL([1, 1]), B(False), IL([0, 0]), I(1), out=Out(f32), rtol=1e-4, atol=1e-5)
    g.case("conv2d_stride_dil_nobias", conv, T(r(1, 4, 11, 10)), T(r(6, 2, 3, 2)), NONE, IL([2, 1]),
           IL([1, 0]), IL([2, 2]), B(False), IL([0, 0]), I(2), out=Out(f32), rtol=1e-4, atol=1e-5)
    g.case("conv2d_depthwise", conv, T(r(1, 8, 10, 10)), T(r(8, 1, 3, 3)), T(r(8)), IL([2, 2]),
           IL([1, 1]), IL([1, 1]), B(False), IL([0, 0]), I(8), out=Out(f32), rtol=1e-4, atol=1e-5)
    g.case("conv2d_1x1", conv, T(r(1, 16, 5, 5)), T(r(8, 16, 1, 1)), NONE, IL([1, 1]), IL([0, 0]),
           IL([1, 1]), B(False), IL([0, 0]), I(1), out=Out(f32), rtol=1e-4, atol=1e-5)
    g.case("conv2d_channels_last", conv, T(r(1, 3, 7, 7), CHANNELS_LAST), T(r(5, 3, 3, 3)), T(r(5)),
           IL([1, 1]), IL([1, 1]), IL([1, 1]), B(False), IL([0, 0]), I(1),
           out=Out(f32, dim_order=CHANNELS_LAST), rtol=1e-4, atol=1e-5)
    g.case("conv1d", conv, T(r(2, 4, 20)), T(r(6, 4, 5)), T(r(6)), IL([2]), IL([2]), IL([1]), B(False),
           IL([0]), I(1), out=Out(f32), rtol=1e-4, atol=1e-5)
    g.case("conv_transpose2d", conv, T(r(1, 4, 5, 5)), T(r(4, 3, 3, 3)), T(r(3)), IL([2, 2]), IL([1, 1]),
           IL([1, 1]), B(True), IL([1, 1]), I(1), out=Out(f32), rtol=1e-4, atol=1e-5)
    g.case("conv_bad_groups", conv, T(r(1, 3, 5, 5)), T(r(4, 1, 3, 3)), NONE, IL([1, 1]), IL([0, 0]),
           IL([1, 1]), B(False), IL([0, 0]), I(2), out=Out(f32, shape=[1, 4, 3, 3]), error="InvalidArgument")

    # --- pooling (single-out variants) ---
    g.case("avg_pool", "aten::avg_pool2d.out", T(r(1, 2, 7, 7)), IL([3, 3]), IL([2, 2]), IL([1, 1]),
           B(False), B(True), NONE, out=Out(f32))
    g.case("avg_pool_ceil_nopad_count", "aten::avg_pool2d.out", T(r(2, 3, 8, 7)), IL([3, 2]), IL([2, 2]),
           IL([1, 1]), B(True), B(False), NONE, out=Out(f32))
    g.case("avg_pool_divisor", "aten::avg_pool2d.out", T(r(1, 2, 6, 6)), IL([2, 2]), IL([]), IL([0, 0]),
           B(False), B(True), I(3), out=Out(f32))
    g.case("avg_pool_channels_last", "aten::avg_pool2d.out", T(r(1, 3, 6, 6), CHANNELS_LAST), IL([2, 2]),
           IL([2, 2]), IL([0, 0]), B(False), B(True), NONE, out=Out(f32, dim_order=CHANNELS_LAST))
    g.case("adaptive_avg", "aten::_adaptive_avg_pool2d.out", T(r(1, 3, 7, 9)), IL([3, 4]), out=Out(f32))

    # --- softmax ---
    x = r(3, 5)
    x[1] = float("-inf")
    g.case("softmax_last", "aten::_softmax.out", T(r(4, 9)), I(-1), B(False), out=Out(f32))
    g.case("softmax_dim0", "aten::_softmax.out", T(r(4, 3, 5)), I(1), B(False), out=Out(f32))
    g.case("log_softmax", "aten::_log_softmax.out", T(r(4, 9)), I(1), B(False), out=Out(f32))
    g.case("log_softmax_mid", "aten::_log_softmax.out", T(r(2, 6, 3)), I(1), B(False), out=Out(f32))
    g.case("softmax_f64", "aten::_softmax.out", T(r(3, 4, dtype=torch.float64)), I(-1), B(False),
           out=Out(torch.float64))
    g.case("softmax_half", "aten::_softmax.out", T(r(3, 8, dtype=torch.float16)), I(-1), B(False),
           out=Out(torch.float16))
    g.case("softmax_empty", "aten::_softmax.out", T(r(0, 4)), I(-1), B(False), out=Out(f32))

    # --- reductions ---
    g.case("sum_all", "aten::sum.IntList_out", T(r(3, 4)), IL([]), B(False), NONE, out=Out(f32))
    g.case("sum_dims_keep", "aten::sum.IntList_out", T(r(2, 3, 4)), IL([0, -1]), B(True), NONE, out=Out(f32))
    g.case("sum_bool", "aten::sum.IntList_out", T(r(3, 4, dtype=torch.bool)), IL([1]), B(False), NONE,
           out=Out(torch.int64))
    g.case("sum_int64", "aten::sum.IntList_out", T(r(3, 4, dtype=torch.int64)), IL([0]), B(False), NONE,
           out=Out(torch.int64))
    g.case("sum_channels_last", "aten::sum.IntList_out", T(r(2, 3, 4, 5), CHANNELS_LAST), IL([2, 3]),
           B(False), NONE, out=Out(f32))
    g.case("mean_hw", "aten::mean.out", T(r(2, 8, 4, 4)), IL([-1, -2]), B(True), NONE, out=Out(f32))
    g.case("mean_none", "aten::mean.out", T(r(3, 5)), NONE, B(False), NONE, out=Out(f32))
    g.case("mean_empty", "aten::mean.out", T(r(0, 3)), IL([1]), B(False), NONE, out=Out(f32))
    g.case("cumsum", "aten::cumsum.out", T(r(3, 5)), I(1), NONE, out=Out(f32))
    g.case("cumsum_bool", "aten::cumsum.out", T(r(2, 6, dtype=torch.bool)), I(-1), NONE,
           out=Out(torch.int64))
    g.case("cumsum_dim0_int", "aten::cumsum.out", T(r(4, 3, dtype=torch.int32)), I(0), NONE,
           out=Out(torch.int64))
    g.case("amax", "aten::amax.out", T(r(3, 4, 5)), IL([1]), B(False), out=Out(f32))
    g.case("amin_keep", "aten::amin.out", T(r(3, 4, 5, dtype=torch.int64)), IL([0, 2]), B(True),
           out=Out(torch.int64))
    g.case("argmax", "aten::argmax.out", T(r(3, 7)), I(1), B(False), out=Out(torch.int64))
    g.case("argmax_all", "aten::argmax.out", T(r(3, 7)), NONE, B(False), out=Out(torch.int64))
    g.case("argmin_keep", "aten::argmin.out", T(r(4, 3)), I(0), B(True), out=Out(torch.int64))
    g.case("var", "aten::var.correction_out", T(r(4, 6)), IL([1]), NONE, B(False), out=Out(f32))

    # --- shape / copy ---
    for dt in (f32, torch.int64, torch.bool, torch.float16):
        name = str(dt).split(".")[-1]
        g.case("permute_" + name, "aten::permute_copy.out", T(r(2, 3, 4, dtype=dt)), IL([2, 0, 1]),
               out=Out(dt))
        g.case("expand_" + name, "aten::expand_copy.out", T(r(3, 1, dtype=dt)), IL([2, -1, 4]), B(False),
               out=Out(dt))
        g.case("slice_" + name, "aten::slice_copy.Tensor_out", T(r(5, 6, dtype=dt)), I(1), I(-5), I(100),
               I(2), out=Out(dt))
    g.case("permute_channels_last_in", "aten::permute_copy.out", T(r(1, 3, 4, 5), CHANNELS_LAST),
           IL([0, 2, 3, 1]), out=Out(f32))
    g.case("view", "aten::view_copy.out", T(r(2, 3, 4)), IL([4, -1]), out=Out(f32))
    g.case("view_channels_last", "aten::view_copy.out", T(r(1, 2, 3, 2), CHANNELS_LAST), IL([12]),
           out=Out(f32))
    g.case("view_bad", "aten::view_copy.out", T(r(2, 3)), IL([4, 2]), out=Out(f32, shape=[4, 2]),
           error="InvalidArgument")
    g.case("slice_none", "aten::slice_copy.Tensor_out", T(r(4, 3)), I(0), NONE, NONE, I(3), out=Out(f32))
    g.case("slice_empty", "aten::slice_copy.Tensor_out", T(r(4, 3)), I(0), I(3), I(1), I(1), out=Out(f32))
    g.case("slice_dynamic", "aten::slice_copy.Tensor_out", T(r(6, 3)), I(0), I(1), I(4), I(1),
           out=Out(f32, shape=[6, 3], dynamic=True))
    g.case("select_neg", "aten::select_copy.int_out", T(r(3, 4, 5)), I(1), I(-1), out=Out(f32))
    g.case("select_oob", "aten::select_copy.int_out", T(r(3, 4)), I(0), I(3), out=Out(f32, shape=[4]),
           error="InvalidArgument")
    g.case("squeeze_dims", "aten::squeeze_copy.dims_out", T(r(1, 3, 1, 2)), IL([0, 2]), out=Out(f32))
    g.case("squeeze_dim_noop", "aten::squeeze_copy.dim_out", T(r(2, 3)), I(1), out=Out(f32))
    g.case("unsqueeze", "aten::unsqueeze_copy.out", T(r(2, 3)), I(-1), out=Out(f32))
    g.case("unsqueeze_0dim", "aten::unsqueeze_copy.out", T(r()), I(0), out=Out(f32))
    g.case("transpose", "aten::transpose_copy.int_out", T(r(2, 3, 4)), I(0), I(2), out=Out(f32))
    g.case("t", "aten::t_copy.out", T(r(3, 5, dtype=torch.int64)), out=Out(torch.int64))
    g.case("pad", "aten::constant_pad_nd.out", T(r(2, 3, 4)), IL([1, 2, 0, 1]), F(0.5), out=Out(f32))
    g.case("pad_negative", "aten::constant_pad_nd.out", T(r(3, 5)), IL([-1, 2]), I(0), out=Out(f32))
    g.case("repeat", "aten::repeat.out", T(r(2, 3)), IL([2, 1, 2]), out=Out(f32))
    g.case("narrow", "aten::narrow_copy.out", T(r(4, 6)), I(1), I(2), I(3), out=Out(f32))

    # --- indexing ---
    w = r(10, 4)
    g.case("embedding", "aten::embedding.out", T(w), T(torch.tensor([[1, 9], [0, 3]])), I(-1), B(False),
           B(False), out=Out(f32))
    g.case("embedding_i32", "aten::embedding.out", T(w), T(torch.tensor([2, 2, 7], dtype=torch.int32)),
           I(-1), B(False), B(False), out=Out(f32))
    g.case("embedding_oob", "aten::embedding.out", T(w), T(torch.tensor([10])), I(-1), B(False),
           B(False), out=Out(f32, shape=[1, 4]), error="InvalidArgument")
    g.case("gather", "aten::gather.out", T(r(3, 5)), I(1), T(torch.tensor([[0, 4], [1, 1], [3, 2]])),
           B(False), out=Out(f32))
    g.case("gather_int", "aten::gather.out", T(r(4, 2, dtype=torch.int64)), I(0),
           T(torch.tensor([[3, 0], [1, 2]])), B(False), out=Out(torch.int64))
    g.case("index_select", "aten::index_select.out", T(r(4, 3)), I(0), T(torch.tensor([3, 0, 3])),
           out=Out(f32))

    # --- factory ---
    g.case("arange_int", "aten::arange.start_out", I(0), I(7), I(2), out=Out(torch.int64))
    g.case("arange_float", "aten::arange.start_out", F(0.5), F(2.0), F(0.25), out=Out(f32))
    g.case("arange_neg_step", "aten::arange.start_out", I(5), I(-3), I(-3), out=Out(torch.int64))
    g.case("arange_end", "aten::arange.out", I(5), out=Out(f32))
