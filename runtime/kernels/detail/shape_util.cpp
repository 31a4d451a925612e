#include <executorch/runtime/kernels/detail/shape_util.h>

#include <cstring>

namespace executorch {
namespace kernels {
namespace detail {

namespace {

template <class T>
void copy_run(char* d, const char* s, int64_t n, int64_t ds, int64_t ss) {
  T* dt = reinterpret_cast<T*>(d);
  const T* st = reinterpret_cast<const T*>(s);
  for (int64_t i = 0; i < n; ++i) {
    dt[i * ds] = st[i * ss];
  }
}

}  // namespace

void strided_copy(int rank, const int64_t* sizes, const DimOrderType* order, void* dst,
                  const int64_t* dst_strides, const void* src, const int64_t* src_strides,
                  size_t elem_size) {
  int64_t strides[2][kMaxDim];
  for (int d = 0; d < rank; ++d) {
    strides[0][d] = dst_strides[d];
    strides[1][d] = src_strides[d];
  }
  StridedLoop<2> L;
  make_strided_loop_raw<2>(rank, sizes, order, strides, &L);
  if (L.numel == 0) {
    return;
  }
  char* dp = static_cast<char*>(dst);
  const char* sp = static_cast<const char*>(src);
  const int64_t es = static_cast<int64_t>(elem_size);
  for_each_run(L, [&](const int64_t* off, int64_t n, const int64_t* s) {
    char* d = dp + off[0] * es;
    const char* p = sp + off[1] * es;
    if (s[0] == 1 && s[1] == 1) {
      std::memcpy(d, p, static_cast<size_t>(n * es));
      return;
    }
    switch (elem_size) {
      case 1:
        copy_run<uint8_t>(d, p, n, s[0], s[1]);
        break;
      case 2:
        copy_run<uint16_t>(d, p, n, s[0], s[1]);
        break;
      case 4:
        copy_run<uint32_t>(d, p, n, s[0], s[1]);
        break;
      case 8:
        copy_run<uint64_t>(d, p, n, s[0], s[1]);
        break;
      default:
        for (int64_t i = 0; i < n; ++i) {
          std::memcpy(d + i * s[0] * es, p + i * s[1] * es, elem_size);
        }
    }
  });
}

void copy_logical_order(const Tensor& in, const Tensor& out) {
  const size_t es = static_cast<size_t>(out.element_size());
  const int64_t n = out.numel();
  if (n == 0) {
    return;
  }
  const bool in_c = is_contiguous_dim_order(in);
  const bool out_c = is_contiguous_dim_order(out);
  if (in_c && out_c) {
    if (in.const_data_ptr() != out.const_data_ptr()) {
      std::memmove(out.mutable_data_ptr(), in.const_data_ptr(), static_cast<size_t>(n) * es);
    }
    return;
  }
  const char* s = static_cast<const char*>(in.const_data_ptr());
  char* d = static_cast<char*>(out.mutable_data_ptr());
  if (in_c) {
    // Walk out in its logical shape; in's offset is the logical index.
    int64_t sizes[kMaxDim], ds[kMaxDim], ss[kMaxDim];
    sizes64(out, sizes);
    strides64(out, ds);
    int64_t acc = 1;
    for (ssize_t i = out.dim() - 1; i >= 0; --i) {
      ss[i] = acc;
      acc *= sizes[i];
    }
    strided_copy(static_cast<int>(out.dim()), sizes, nullptr, d, ds, s, ss, es);
    return;
  }
  if (out_c) {
    int64_t sizes[kMaxDim], ds[kMaxDim], ss[kMaxDim];
    sizes64(in, sizes);
    strides64(in, ss);
    int64_t acc = 1;
    for (ssize_t i = in.dim() - 1; i >= 0; --i) {
      ds[i] = acc;
      acc *= sizes[i];
    }
    strided_copy(static_cast<int>(in.dim()), sizes, nullptr, d, ds, s, ss, es);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(d + logical_to_offset(out, i) * static_cast<int64_t>(es),
                s + logical_to_offset(in, i) * static_cast<int64_t>(es), es);
  }
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
