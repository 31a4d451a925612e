/*
 * any / all reductions: any.out (one dim), any.dims_out (a dim list, None or
 * empty for all dims), any.all_out, and the same forms of all. Out is Bool
 * (or Byte for a Byte input), with keepdim.
 */
#include <cstring>

#include <executorch/runtime/kernels/detail/helpers.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(any_out_name, "aten::any.out");
ET_DEFINE_OPERATOR_NAME(any_dims_out_name, "aten::any.dims_out");
ET_DEFINE_OPERATOR_NAME(any_all_out_name, "aten::any.all_out");
ET_DEFINE_OPERATOR_NAME(all_out_name, "aten::all.out");
ET_DEFINE_OPERATOR_NAME(all_dims_out_name, "aten::all.dims_out");
ET_DEFINE_OPERATOR_NAME(all_all_out_name, "aten::all.all_out");

using std::optional;

/* reduce[d] marks the reduced dims of `in`; computes out and fills it. */
template <bool kAny>
Tensor& reduce_bool(const char* op, KernelRuntimeContext& ctx, const Tensor& in, const bool* reduce,
                    bool keepdim, Tensor& out) {
  if (!check_dtype_in(ctx, op, "self", in, dtypes::kRealHBBF16) ||
      !check_dtype_in(ctx, op, "out", out, dtypes::kBool | dtypes::kByte)) {
    return out;
  }
  const int rank = static_cast<int>(in.dim());
  SizesType out_sizes[kMaxDim];
  int out_rank = 0;
  for (int d = 0; d < rank; ++d) {
    if (!reduce[d]) {
      out_sizes[out_rank++] = in.sizes()[d];
    } else if (keepdim) {
      out_sizes[out_rank++] = 1;
    }
  }
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(out_sizes, static_cast<size_t>(out_rank)))) {
    return out;
  }
  uint8_t* o = static_cast<uint8_t*>(out.mutable_data_ptr());
  if (out.numel() > 0) {
    std::memset(o, kAny ? 0 : 1, static_cast<size_t>(out.numel()));
  }
  // Walk the input; out is addressed with stride 0 along reduced dims.
  int64_t sizes[kMaxDim];
  int64_t strides[2][kMaxDim];
  int j = 0;
  for (int d = 0; d < rank; ++d) {
    sizes[d] = in.sizes()[d];
    strides[0][d] = in.strides()[d];
    if (reduce[d]) {
      strides[1][d] = 0;
      if (keepdim) {
        ++j;
      }
    } else {
      strides[1][d] = out.strides()[j++];
    }
  }
  StridedLoop<2> L;
  make_strided_loop_raw<2>(rank, sizes, in.dim_order().data(), strides, &L);
  const LoadFn<bool> ld = load_fn<bool>(in.scalar_type());
  const char* src = static_cast<const char*>(in.const_data_ptr());
  const int64_t es = in.element_size();
  for_each_run(L, [&](const int64_t* off, int64_t n, const int64_t* s) {
    uint8_t* po = o + off[1];
    for (int64_t i = 0; i < n; ++i) {
      const bool v = ld(src + (off[0] + i * s[0]) * es);
      if (kAny) {
        po[i * s[1]] |= static_cast<uint8_t>(v);
      } else {
        po[i * s[1]] &= static_cast<uint8_t>(v);
      }
    }
  });
  return out;
}

template <bool kAny>
Tensor& reduce_dims(const char* op, KernelRuntimeContext& ctx, const Tensor& in,
                    const optional<ArrayRef<int64_t>>& dims, bool keepdim, Tensor& out) {
  bool reduce[kMaxDim] = {false};
  const int rank = static_cast<int>(in.dim());
  if (!dims.has_value() || dims->empty()) {
    for (int d = 0; d < rank; ++d) {
      reduce[d] = true;
    }
  } else {
    for (int64_t dim : *dims) {
      int64_t nd;
      if (!normalize_dim(ctx, op, "dim", dim, rank, &nd)) {
        return out;
      }
      if (rank > 0) {
        ET_KERNEL_CHECK_MSG(ctx, !reduce[nd], InvalidArgument, out,
                            "%s: argument 'dim' repeats dim %lld", op, static_cast<long long>(nd));
        reduce[nd] = true;
      }
    }
  }
  return reduce_bool<kAny>(op, ctx, in, reduce, keepdim, out);
}

Tensor& any_out(KernelRuntimeContext& ctx, const Tensor& in, int64_t dim, bool keepdim,
                Tensor& out) {
  const int64_t d[1] = {dim};
  return reduce_dims<true>(log_name(any_out_name), ctx, in, ArrayRef<int64_t>(d, 1), keepdim, out);
}
Tensor& any_dims_out(KernelRuntimeContext& ctx, const Tensor& in, optional<ArrayRef<int64_t>> dims,
                     bool keepdim, Tensor& out) {
  return reduce_dims<true>(log_name(any_dims_out_name), ctx, in, dims, keepdim, out);
}
Tensor& any_all_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return reduce_dims<true>(log_name(any_all_out_name), ctx, in, std::nullopt, false, out);
}
Tensor& all_out(KernelRuntimeContext& ctx, const Tensor& in, int64_t dim, bool keepdim,
                Tensor& out) {
  const int64_t d[1] = {dim};
  return reduce_dims<false>(log_name(all_out_name), ctx, in, ArrayRef<int64_t>(d, 1), keepdim, out);
}
Tensor& all_dims_out(KernelRuntimeContext& ctx, const Tensor& in, optional<ArrayRef<int64_t>> dims,
                     bool keepdim, Tensor& out) {
  return reduce_dims<false>(log_name(all_dims_out_name), ctx, in, dims, keepdim, out);
}
Tensor& all_all_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  return reduce_dims<false>(log_name(all_all_out_name), ctx, in, std::nullopt, false, out);
}

ETK_REGISTER_KERNEL(any_out_name, any_out);
ETK_REGISTER_KERNEL(any_dims_out_name, any_dims_out);
ETK_REGISTER_KERNEL(any_all_out_name, any_all_out);
ETK_REGISTER_KERNEL(all_out_name, all_out);
ETK_REGISTER_KERNEL(all_dims_out_name, all_dims_out);
ETK_REGISTER_KERNEL(all_all_out_name, all_all_out);

}  // namespace
}  // namespace kernels
}  // namespace executorch
