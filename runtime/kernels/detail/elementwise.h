/*
 * Elementwise loops over 1, 2 or 3 inputs with broadcasting, any dim order,
 * and dtype conversion on load and store.
 *
 *   apply_unary<CT>(ctx, op, in, out, [](CT x) { return ...; });
 *   apply_binary<CT>(ctx, op, a, b, out, [](CT x, CT y) { return ...; });
 *   apply_ternary<T1, T2, T3>(ctx, op, a, b, c, out, fn);
 *
 * Inputs are loaded as the compute type(s), fn's result type R is stored
 * into out's dtype. out must already have its final shape (see
 * resize_out_to_broadcast); every input must broadcast to it. When every
 * operand's dtype equals its C++ type the loops run on typed pointers; runs
 * that are contiguous (or an input that is a single broadcast value) get
 * tight loops the compiler vectorizes. Otherwise each element goes through
 * the per-dtype load/store function pointers.
 *
 * These functions return false after failing ctx (with a log naming op) if
 * a dtype has no conversion or the shapes do not broadcast.
 */
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <executorch/runtime/kernels/detail/broadcast.h>
#include <executorch/runtime/kernels/detail/dtype_util.h>
#include <executorch/runtime/kernels/detail/kernel_util.h>

namespace executorch {
namespace kernels {
namespace detail {

namespace internal {

inline bool bad_shapes(KernelRuntimeContext& ctx, const char* op) {
  ET_LOG(Error, "%s: input shapes do not broadcast to the output shape", op);
  ctx.fail(Error::InvalidArgument);
  return false;
}

inline bool bad_dtype(KernelRuntimeContext& ctx, const char* op, const char* arg, ScalarType t) {
  ET_LOG(Error, "%s: argument '%s' has unsupported dtype %s", op, arg, dtype_name(t));
  ctx.fail(Error::InvalidArgument);
  return false;
}

}  // namespace internal

// Reads one element of a typed buffer. A Bool element is read as its byte (nonzero is true):
// planned memory another tensor wrote, or a mutated file, may hold bytes other than 0 and 1
// there, and loading such a byte as a C++ bool is undefined behaviour.
template <class T>
inline T read_elem(const T* p) {
  return *p;
}
template <>
inline bool read_elem<bool>(const bool* p) {
  uint8_t byte;
  std::memcpy(&byte, p, 1);
  return byte != 0;
}

template <class CT, class F>
bool apply_unary(KernelRuntimeContext& ctx, const char* op, const Tensor& in, const Tensor& out,
                 F fn) {
  using R = std::decay_t<decltype(fn(std::declval<CT>()))>;
  const Tensor* ops[2] = {&out, &in};
  StridedLoop<2> L;
  if (!make_strided_loop(ops, &L)) {
    return internal::bad_shapes(ctx, op);
  }
  if (L.numel == 0) {
    return true;
  }
  if (in.scalar_type() == scalar_type_of<CT>() && out.scalar_type() == scalar_type_of<R>()) {
    const CT* a = in.const_data_ptr<CT>();
    R* o = out.mutable_data_ptr<R>();
    parallel_for_each_run(L, [&](const int64_t* off, int64_t n, const int64_t* s) {
      R* po = o + off[0];
      const CT* pa = a + off[1];
      if (s[0] == 1 && s[1] == 1) {
        for (int64_t i = 0; i < n; ++i) {
          po[i] = fn(read_elem(pa + i));
        }
      } else if (s[0] == 1 && s[1] == 0) {
        const R v = fn(read_elem(pa + 0));
        for (int64_t i = 0; i < n; ++i) {
          po[i] = v;
        }
      } else {
        for (int64_t i = 0; i < n; ++i) {
          po[i * s[0]] = fn(read_elem(pa + i * s[1]));
        }
      }
    });
    return true;
  }
  const LoadFn<CT> la = load_fn<CT>(in.scalar_type());
  if (la == nullptr) {
    return internal::bad_dtype(ctx, op, "self", in.scalar_type());
  }
  const StoreFn<R> st = store_fn<R>(out.scalar_type());
  if (st == nullptr) {
    return internal::bad_dtype(ctx, op, "out", out.scalar_type());
  }
  const char* a = static_cast<const char*>(in.const_data_ptr());
  char* o = static_cast<char*>(out.mutable_data_ptr());
  const int64_t ea = in.element_size();
  const int64_t eo = out.element_size();
  parallel_for_each_run(L, [&](const int64_t* off, int64_t n, const int64_t* s) {
    for (int64_t i = 0; i < n; ++i) {
      st(fn(la(a + (off[1] + i * s[1]) * ea)), o + (off[0] + i * s[0]) * eo);
    }
  });
  return true;
}

template <class CT, class F>
bool apply_binary(KernelRuntimeContext& ctx, const char* op, const Tensor& in_a, const Tensor& in_b,
                  const Tensor& out, F fn) {
  using R = std::decay_t<decltype(fn(std::declval<CT>(), std::declval<CT>()))>;
  const Tensor* ops[3] = {&out, &in_a, &in_b};
  StridedLoop<3> L;
  if (!make_strided_loop(ops, &L)) {
    return internal::bad_shapes(ctx, op);
  }
  if (L.numel == 0) {
    return true;
  }
  constexpr ScalarType kCT = scalar_type_of<CT>();
  if (in_a.scalar_type() == kCT && in_b.scalar_type() == kCT &&
      out.scalar_type() == scalar_type_of<R>()) {
    const CT* a = in_a.const_data_ptr<CT>();
    const CT* b = in_b.const_data_ptr<CT>();
    R* o = out.mutable_data_ptr<R>();
    if (L.ndim == 2 && L.stride[0][1] == 1 && L.stride[1][1] == 1 && L.stride[2][1] == 1) {
      // Rows of contiguous runs, e.g. a channels-last [N, C, H, W] times a per-channel
      // [N, C, 1, 1] (squeeze-excitation): the rows are few channels long, so they are walked
      // here rather than one run call each.
      const int64_t n = L.size[1];
      compute::parallel_items(L.size[0], static_cast<double>(n), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          R* po = o + r * L.stride[0][0];
          const CT* pa = a + r * L.stride[1][0];
          const CT* pb = b + r * L.stride[2][0];
          for (int64_t i = 0; i < n; ++i) {
            po[i] = fn(read_elem(pa + i), read_elem(pb + i));
          }
        }
      });
      return true;
    }
    parallel_for_each_run(L, [&](const int64_t* off, int64_t n, const int64_t* s) {
      R* po = o + off[0];
      const CT* pa = a + off[1];
      const CT* pb = b + off[2];
      if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
        for (int64_t i = 0; i < n; ++i) {
          po[i] = fn(read_elem(pa + i), read_elem(pb + i));
        }
      } else if (s[0] == 1 && s[1] == 1 && s[2] == 0) {
        const CT vb = read_elem(pb + 0);
        for (int64_t i = 0; i < n; ++i) {
          po[i] = fn(read_elem(pa + i), vb);
        }
      } else if (s[0] == 1 && s[1] == 0 && s[2] == 1) {
        const CT va = read_elem(pa + 0);
        for (int64_t i = 0; i < n; ++i) {
          po[i] = fn(va, read_elem(pb + i));
        }
      } else {
        for (int64_t i = 0; i < n; ++i) {
          po[i * s[0]] = fn(read_elem(pa + i * s[1]), read_elem(pb + i * s[2]));
        }
      }
    });
    return true;
  }
  const LoadFn<CT> la = load_fn<CT>(in_a.scalar_type());
  if (la == nullptr) {
    return internal::bad_dtype(ctx, op, "self", in_a.scalar_type());
  }
  const LoadFn<CT> lb = load_fn<CT>(in_b.scalar_type());
  if (lb == nullptr) {
    return internal::bad_dtype(ctx, op, "other", in_b.scalar_type());
  }
  const StoreFn<R> st = store_fn<R>(out.scalar_type());
  if (st == nullptr) {
    return internal::bad_dtype(ctx, op, "out", out.scalar_type());
  }
  const char* a = static_cast<const char*>(in_a.const_data_ptr());
  const char* b = static_cast<const char*>(in_b.const_data_ptr());
  char* o = static_cast<char*>(out.mutable_data_ptr());
  const int64_t ea = in_a.element_size();
  const int64_t eb = in_b.element_size();
  const int64_t eo = out.element_size();
  parallel_for_each_run(L, [&](const int64_t* off, int64_t n, const int64_t* s) {
    for (int64_t i = 0; i < n; ++i) {
      st(fn(la(a + (off[1] + i * s[1]) * ea), lb(b + (off[2] + i * s[2]) * eb)),
         o + (off[0] + i * s[0]) * eo);
    }
  });
  return true;
}

template <class T1, class T2, class T3, class F>
bool apply_ternary(KernelRuntimeContext& ctx, const char* op, const Tensor& in_a,
                   const Tensor& in_b, const Tensor& in_c, const Tensor& out, F fn) {
  using R = std::decay_t<decltype(fn(std::declval<T1>(), std::declval<T2>(), std::declval<T3>()))>;
  const Tensor* ops[4] = {&out, &in_a, &in_b, &in_c};
  StridedLoop<4> L;
  if (!make_strided_loop(ops, &L)) {
    return internal::bad_shapes(ctx, op);
  }
  if (L.numel == 0) {
    return true;
  }
  if (in_a.scalar_type() == scalar_type_of<T1>() && in_b.scalar_type() == scalar_type_of<T2>() &&
      in_c.scalar_type() == scalar_type_of<T3>() && out.scalar_type() == scalar_type_of<R>()) {
    const T1* a = in_a.const_data_ptr<T1>();
    const T2* b = in_b.const_data_ptr<T2>();
    const T3* c = in_c.const_data_ptr<T3>();
    R* o = out.mutable_data_ptr<R>();
    parallel_for_each_run(L, [&](const int64_t* off, int64_t n, const int64_t* s) {
      R* po = o + off[0];
      const T1* pa = a + off[1];
      const T2* pb = b + off[2];
      const T3* pc = c + off[3];
      if (s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] == 1) {
        for (int64_t i = 0; i < n; ++i) {
          po[i] = fn(read_elem(pa + i), read_elem(pb + i), read_elem(pc + i));
        }
      } else {
        for (int64_t i = 0; i < n; ++i) {
          po[i * s[0]] =
              fn(read_elem(pa + i * s[1]), read_elem(pb + i * s[2]), read_elem(pc + i * s[3]));
        }
      }
    });
    return true;
  }
  const LoadFn<T1> la = load_fn<T1>(in_a.scalar_type());
  const LoadFn<T2> lb = load_fn<T2>(in_b.scalar_type());
  const LoadFn<T3> lc = load_fn<T3>(in_c.scalar_type());
  const StoreFn<R> st = store_fn<R>(out.scalar_type());
  if (la == nullptr || lb == nullptr || lc == nullptr || st == nullptr) {
    ET_LOG(Error, "%s: unsupported dtype among the arguments", op);
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  const char* a = static_cast<const char*>(in_a.const_data_ptr());
  const char* b = static_cast<const char*>(in_b.const_data_ptr());
  const char* c = static_cast<const char*>(in_c.const_data_ptr());
  char* o = static_cast<char*>(out.mutable_data_ptr());
  const int64_t ea = in_a.element_size();
  const int64_t eb = in_b.element_size();
  const int64_t ec = in_c.element_size();
  const int64_t eo = out.element_size();
  parallel_for_each_run(L, [&](const int64_t* off, int64_t n, const int64_t* s) {
    for (int64_t i = 0; i < n; ++i) {
      st(fn(la(a + (off[1] + i * s[1]) * ea), lb(b + (off[2] + i * s[2]) * eb),
            lc(c + (off[3] + i * s[3]) * ec)),
         o + (off[0] + i * s[0]) * eo);
    }
  });
  return true;
}

/*
 * Like apply_binary / apply_unary, for ops whose PyTorch result dtype is
 * `common` (the promoted input dtype): when common is Half or BFloat16 but
 * out is wider, each result is rounded through common first, as eager
 * PyTorch computes in common and then casts to out.
 */
template <class CT, class F>
bool apply_binary_common(KernelRuntimeContext& ctx, const char* op, const Tensor& a,
                         const Tensor& b, const Tensor& out, ScalarType common, F fn) {
  if constexpr (std::is_same<CT, float>::value) {
    if (common != out.scalar_type()) {
      if (common == ScalarType::Half) {
        return apply_binary<CT>(ctx, op, a, b, out, [fn](CT x, CT y) mutable {
          return static_cast<float>(Half(fn(x, y)));
        });
      }
      if (common == ScalarType::BFloat16) {
        return apply_binary<CT>(ctx, op, a, b, out, [fn](CT x, CT y) mutable {
          return static_cast<float>(BFloat16(fn(x, y)));
        });
      }
    }
  }
  return apply_binary<CT>(ctx, op, a, b, out, fn);
}

template <class CT, class F>
bool apply_unary_common(KernelRuntimeContext& ctx, const char* op, const Tensor& a,
                        const Tensor& out, ScalarType common, F fn) {
  if constexpr (std::is_same<CT, float>::value) {
    if (common != out.scalar_type()) {
      if (common == ScalarType::Half) {
        return apply_unary<CT>(ctx, op, a, out,
                               [fn](CT x) mutable { return static_cast<float>(Half(fn(x))); });
      }
      if (common == ScalarType::BFloat16) {
        return apply_unary<CT>(ctx, op, a, out,
                               [fn](CT x) mutable { return static_cast<float>(BFloat16(fn(x))); });
      }
    }
  }
  return apply_unary<CT>(ctx, op, a, out, fn);
}

/*
 * Byte-level strided copy of `in` into `out` (same dtype, out already sized
 * to a shape `in` broadcasts to; any dim orders). Element-size generic, so
 * every dtype works. Contiguous runs use memcpy.
 */
bool copy_strided(KernelRuntimeContext& ctx, const char* op, const Tensor& in, const Tensor& out);

/*
 * Copies `in` into `out` converting the dtype (out's dtype is the target),
 * with broadcasting and any dim orders. Same dtype falls back to
 * copy_strided.
 */
bool copy_convert(KernelRuntimeContext& ctx, const char* op, const Tensor& in, const Tensor& out);

/*
 * Common prologue of a binary tensor-tensor op: both inputs and out have
 * dtypes in `allowed`, the promoted dtype of a and b is written to *common
 * and must be castable to out's dtype (out's dtype is authoritative), and
 * out is resized to the broadcast shape.
 */
inline bool prepare_binary(KernelRuntimeContext& ctx, const char* op, const Tensor& a,
                           const Tensor& b, const Tensor& out, DtypeSet allowed,
                           ScalarType* common) {
  if (!check_dtype_in(ctx, op, "self", a, allowed) ||
      !check_dtype_in(ctx, op, "other", b, allowed) ||
      !check_dtype_in(ctx, op, "out", out, allowed)) {
    return false;
  }
  *common = ::executorch::runtime::promoteTypes(a.scalar_type(), b.scalar_type());
  ET_KERNEL_CHECK_MSG(ctx, *common != ScalarType::Undefined, InvalidArgument, false,
                      "%s: no common dtype for %s and %s", op, dtype_name(a.scalar_type()),
                      dtype_name(b.scalar_type()));
  if (!check_can_cast(ctx, op, *common, "out", out)) {
    return false;
  }
  return resize_out_to_broadcast(ctx, op, out, {&a, &b}, {"self", "other"});
}

}  // namespace detail
}  // namespace kernels
}  // namespace executorch
