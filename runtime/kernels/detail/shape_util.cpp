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

// Square tiles of a transposing copy: 16 x 16 elements of 4 bytes are 16 cache lines on each
// side, which stay in L1 while the tile is walked.
constexpr int64_t kTile = 16;

// A copy whose destination is contiguous along dim a and whose source is contiguous along
// another dim b (a transpose of a and b, e.g. NCHW <-> NHWC or a matrix transpose): copied in
// kTile x kTile tiles of (a, b) for every index of the other dims, instead of rows that read
// the source with a stride of a whole row per element.
template <class T>
void tiled_transpose(int rank, const int64_t* sizes, int a, int b, char* dst,
                     const int64_t* dst_strides, const char* src, const int64_t* src_strides) {
  int64_t idx[kMaxDim] = {};
  T* const d0 = reinterpret_cast<T*>(dst);
  const T* const s0 = reinterpret_cast<const T*>(src);
  const int64_t na = sizes[a], nb = sizes[b];
  const int64_t dsb = dst_strides[b], ssa = src_strides[a];
  for (;;) {
    int64_t od = 0, os = 0;
    for (int d = 0; d < rank; ++d) {
      od += idx[d] * dst_strides[d];
      os += idx[d] * src_strides[d];
    }
    for (int64_t j0 = 0; j0 < nb; j0 += kTile) {
      const int64_t j1 = j0 + kTile < nb ? j0 + kTile : nb;
      for (int64_t i0 = 0; i0 < na; i0 += kTile) {
        const int64_t i1 = i0 + kTile < na ? i0 + kTile : na;
        for (int64_t j = j0; j < j1; ++j) {
          T* dp = d0 + od + j * dsb;
          const T* sp = s0 + os + j;
          for (int64_t i = i0; i < i1; ++i) {
            dp[i] = sp[i * ssa];
          }
        }
      }
    }
    // Next index of the other dims (a and b stay 0 in idx).
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (d == a || d == b) {
        continue;
      }
      if (++idx[d] < sizes[d]) {
        break;
      }
      idx[d] = 0;
    }
    if (d < 0) {
      return;
    }
  }
}

bool try_tiled_transpose(int rank, const int64_t* sizes, void* dst, const int64_t* dst_strides,
                         const void* src, const int64_t* src_strides, size_t elem_size) {
  int a = -1, b = -1;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] <= 1) {
      continue;
    }
    a = dst_strides[d] == 1 ? d : a;
    b = src_strides[d] == 1 ? d : b;
  }
  if (a < 0 || b < 0 || a == b || sizes[a] < kTile || sizes[b] < kTile) {
    return false;
  }
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  switch (elem_size) {
    case 1:
      tiled_transpose<uint8_t>(rank, sizes, a, b, d, dst_strides, s, src_strides);
      return true;
    case 2:
      tiled_transpose<uint16_t>(rank, sizes, a, b, d, dst_strides, s, src_strides);
      return true;
    case 4:
      tiled_transpose<uint32_t>(rank, sizes, a, b, d, dst_strides, s, src_strides);
      return true;
    case 8:
      tiled_transpose<uint64_t>(rank, sizes, a, b, d, dst_strides, s, src_strides);
      return true;
    default:
      return false;
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
  if (try_tiled_transpose(rank, sizes, dst, dst_strides, src, src_strides, elem_size)) {
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
