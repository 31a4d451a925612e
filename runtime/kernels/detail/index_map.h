/*
 * Gather-style kernels whose output element at logical index `oi` is one
 * element of an input at a computed logical index (flip, roll, pads, pixel
 * shuffle, tril, diagonal, unfold, the *_scatter copies): the caller gives
 * the index map, these helpers walk out in logical order and move element
 * bytes through both tensors' strides, so every dtype and dim order works.
 */
#pragma once

#include <cstdint>
#include <cstring>

#include <executorch/runtime/kernels/detail/kernel_util.h>

namespace executorch {
namespace kernels {
namespace detail {

/*
 * For every element of out (logical order): src_of(out_index, src_index)
 * fills src_index (rank of the source tensor it returns) and returns the
 * tensor to read, or nullptr to write zero bytes (a zero of every dtype).
 * Every returned tensor must have out's dtype.
 */
template <class F>
void map_elements(const Tensor& out, F&& src_of) {
  const int64_t n = out.numel();
  if (n == 0) {
    return;
  }
  const ssize_t rank = out.dim();
  const size_t es = out.element_size();
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  int64_t oi[kMaxDim] = {0};
  int64_t si[kMaxDim] = {0};
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (ssize_t d = 0; d < rank; ++d) {
      off += oi[d] * out.strides()[d];
    }
    const Tensor* src = src_of(static_cast<const int64_t*>(oi), static_cast<int64_t*>(si));
    char* p = dst + off * static_cast<int64_t>(es);
    if (src == nullptr) {
      std::memset(p, 0, es);
    } else {
      int64_t soff = 0;
      for (ssize_t d = 0; d < src->dim(); ++d) {
        soff += si[d] * src->strides()[d];
      }
      std::memcpy(p, static_cast<const char*>(src->const_data_ptr()) + soff * es, es);
    }
    for (ssize_t d = rank - 1; d >= 0; --d) {
      if (++oi[d] < out.sizes()[d]) {
        break;
      }
      oi[d] = 0;
    }
  }
}

/* Non-negative remainder of a by m (m > 0). */
inline int64_t wrap_index(int64_t a, int64_t m) {
  const int64_t r = a % m;
  return r < 0 ? r + m : r;
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
