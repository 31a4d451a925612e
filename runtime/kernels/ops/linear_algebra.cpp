/*
 * mm, bmm, addmm and linear. float32 runs on the compute core's blocked,
 * ISA-dispatched SGEMM (operands whose inner 2-D block is row- or
 * column-major go in without a copy, via the transpose flags); the other
 * real dtypes (double, half, bfloat16, integers) use a plain loop that
 * accumulates in float/double/int64.
 *
 * A constant float32 B (a weight) is packed into the SGEMM panel layout once,
 * when the Method is loaded (prepared constants, registered at the end of this
 * file), instead of on every call; the result is bit-identical either way.
 */
#include <cstring>
#include <type_traits>

#include <executorch/runtime/kernel/prepared_constants.h>
#include <executorch/runtime/kernels/compute/activation.h>
#include <executorch/runtime/kernels/compute/gemm.h>
#include <executorch/runtime/kernels/compute/parallel.h>
#include <executorch/runtime/kernels/detail/activation_run.h>
#include <executorch/runtime/kernels/detail/shape_util.h>

namespace executorch {
namespace kernels {
namespace {

using namespace ::executorch::kernels::detail;

// The operators this file registers; log messages use log_name(<name>).
ET_DEFINE_OPERATOR_NAME(mm_out_name, "aten::mm.out");
ET_DEFINE_OPERATOR_NAME(bmm_out_name, "aten::bmm.out");
ET_DEFINE_OPERATOR_NAME(addmm_out_name, "aten::addmm.out");
ET_DEFINE_OPERATOR_NAME(linear_out_name, "aten::linear.out");

using compute::Trans;
using ::executorch::runtime::OpFunction;
using ::executorch::runtime::PreparedConstants;
using ::executorch::runtime::Span;
using std::optional;

// A strided 2-D matrix [rows, cols] inside a tensor.
struct Mat {
  const char* p;
  int64_t rows, cols;
  int64_t sr, sc;  // element strides
};

// How the compute core can read a matrix without copying it.
struct GemmView {
  bool ok;
  Trans t;
  int64_t ld;
};

GemmView gemm_view(const Mat& m) {
  if ((m.cols <= 1 || m.sc == 1) && (m.rows <= 1 || m.sr >= m.cols)) {
    const int64_t ld = m.rows <= 1 ? (m.cols > 1 ? m.cols : 1) : m.sr;
    return {true, Trans::kNo, ld > 0 ? ld : 1};
  }
  if ((m.rows <= 1 || m.sr == 1) && (m.cols <= 1 || m.sc >= m.rows)) {
    const int64_t ld = m.cols <= 1 ? (m.rows > 1 ? m.rows : 1) : m.sc;
    return {true, Trans::kYes, ld > 0 ? ld : 1};
  }
  return {false, Trans::kNo, 0};
}

template <class T>
struct Acc {
  using type = std::conditional_t<
      std::is_floating_point<T>::value,
      std::conditional_t<std::is_same<T, double>::value, double, float>,
      std::conditional_t<std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value, float,
                         int64_t>>;
};

// c = alpha * a @ b + beta * c  (beta == 0: c is not read).
template <class T>
void naive_gemm(const Mat& a, const Mat& b, char* c, int64_t csr, int64_t csc, double alpha,
                double beta) {
  using A = typename Acc<T>::type;
  const T* pa = reinterpret_cast<const T*>(a.p);
  const T* pb = reinterpret_cast<const T*>(b.p);
  T* pc = reinterpret_cast<T*>(c);
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t j = 0; j < b.cols; ++j) {
      A acc = 0;
      for (int64_t k = 0; k < a.cols; ++k) {
        acc = wrap_add(acc, wrap_mul(static_cast<A>(pa[i * a.sr + k * a.sc]),
                                     static_cast<A>(pb[k * b.sr + j * b.sc])));
      }
      T& dst = pc[i * csr + j * csc];
      double v = alpha * static_cast<double>(acc);
      if (beta != 0.0) {
        v += beta * static_cast<double>(static_cast<A>(dst));
      }
      dst = static_cast<T>(static_cast<A>(v));
    }
  }
}

// Prepared-constant tag of a B packed for SGEMM (plus the Trans of its view).
constexpr uint32_t kPackedBTag = 0x53474d42u;  // "SGMB"

// The packed form of B that the Method prepared at load, or null.
const void* prepared_b(KernelRuntimeContext& ctx, const Mat& b) {
  const PreparedConstants* cache = ctx.prepared_constants();
  if (cache == nullptr || b.p == nullptr) {
    return nullptr;
  }
  const GemmView vb = gemm_view(b);
  return vb.ok ? cache->find(b.p, kPackedBTag + static_cast<uint32_t>(vb.t)) : nullptr;
}

// One matrix product into a contiguous [m, n] block of out. packed_b: B as prepared at load
// (or null); sgemm_with_packed_b checks that it describes this B. col_bias (Float only, with
// alpha and beta 1): n floats added to every row, as if out held them with beta 1.
bool matmul_block(KernelRuntimeContext& ctx, const char* op, ScalarType dt, const Mat& a,
                  const Mat& b, char* c, double alpha, double beta, const void* packed_b = nullptr,
                  const float* col_bias = nullptr) {
  const int64_t m = a.rows, n = b.cols, k = a.cols;
  if (dt == ScalarType::Float) {
    const GemmView va = gemm_view(a), vb = gemm_view(b);
    if (va.ok && vb.ok && col_bias != nullptr) {
      compute::sgemm_with_packed_b_col_bias(va.t, vb.t, m, n, k,
                                            reinterpret_cast<const float*>(a.p), va.ld,
                                            reinterpret_cast<const float*>(b.p), vb.ld, col_bias,
                                            reinterpret_cast<float*>(c), n > 0 ? n : 1, packed_b);
      return true;
    }
    for (int64_t i = 0; col_bias != nullptr && i < m; ++i) {
      std::memcpy(c + i * n * static_cast<int64_t>(sizeof(float)), col_bias,
                  static_cast<size_t>(n) * sizeof(float));
    }
    if (va.ok && vb.ok) {
      compute::sgemm_with_packed_b(
          va.t, vb.t, m, n, k, static_cast<float>(alpha), reinterpret_cast<const float*>(a.p),
          va.ld, reinterpret_cast<const float*>(b.p), vb.ld, static_cast<float>(beta),
          reinterpret_cast<float*>(c), n > 0 ? n : 1, packed_b);
      return true;
    }
  }
  bool ok = true;
  dispatch_dtype<dtypes::kRealHBF16>(ctx, op, dt, [&](auto tag) {
    using CTYPE = typename decltype(tag)::type;
    naive_gemm<CTYPE>(a, b, c, n, 1, alpha, beta);
  });
  ok = ctx.failure_state() == Error::Ok;
  return ok;
}

constexpr DtypeSet kMatDtypes = dtypes::kRealHBF16;

bool check_mat_dtypes(KernelRuntimeContext& ctx, const char* op, const Tensor& a, const char* na,
                      const Tensor& b, const char* nb, const Tensor& out) {
  return check_dtype_in(ctx, op, na, a, kMatDtypes) && check_same_dtype(ctx, op, na, a, nb, b) &&
         check_same_dtype(ctx, op, na, a, "out", out) && check_contiguous(ctx, op, "out", out);
}

Mat mat_of(const Tensor& t, int64_t batch_offset_elems = 0) {
  const ssize_t r = t.dim();
  return Mat{static_cast<const char*>(t.const_data_ptr()) + batch_offset_elems * t.element_size(),
             t.sizes()[r - 2], t.sizes()[r - 1], t.strides()[r - 2], t.strides()[r - 1]};
}

Tensor& mm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  const char* op = log_name(mm_out_name);
  if (!check_rank(ctx, op, "self", self, 2) || !check_rank(ctx, op, "mat2", mat2, 2) ||
      !check_mat_dtypes(ctx, op, self, "self", mat2, "mat2", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, self.size(1) == mat2.size(0), InvalidArgument, out,
                      "%s: argument 'self' [%zd, %zd] and 'mat2' [%zd, %zd] cannot be multiplied",
                      op, self.size(0), self.size(1), mat2.size(0), mat2.size(1));
  const SizesType shape[2] = {static_cast<SizesType>(self.size(0)),
                              static_cast<SizesType>(mat2.size(1))};
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, 2))) {
    return out;
  }
  matmul_block(ctx, op, out.scalar_type(), mat_of(self), mat_of(mat2),
               static_cast<char*>(out.mutable_data_ptr()), 1.0, 0.0, prepared_b(ctx, mat_of(mat2)));
  return out;
}

Tensor& bmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  const char* op = log_name(bmm_out_name);
  if (!check_rank(ctx, op, "self", self, 3) || !check_rank(ctx, op, "mat2", mat2, 3) ||
      !check_mat_dtypes(ctx, op, self, "self", mat2, "mat2", out)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(
      ctx, self.size(0) == mat2.size(0) && self.size(2) == mat2.size(1), InvalidArgument, out,
      "%s: argument 'self' [%zd, %zd, %zd] and 'mat2' [%zd, %zd, %zd] cannot be multiplied", op,
      self.size(0), self.size(1), self.size(2), mat2.size(0), mat2.size(1), mat2.size(2));
  const SizesType shape[3] = {static_cast<SizesType>(self.size(0)),
                              static_cast<SizesType>(self.size(1)),
                              static_cast<SizesType>(mat2.size(2))};
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, 3))) {
    return out;
  }
  const int64_t batch = self.size(0);
  const int64_t block = static_cast<int64_t>(shape[1]) * shape[2] * out.element_size();
  char* c = static_cast<char*>(out.mutable_data_ptr());
  // The products are independent: split the batch across the thread pool. The dtypes were
  // checked above, so matmul_block cannot fail (and touch ctx) from a worker.
  const double macs = static_cast<double>(shape[1]) * shape[2] * self.size(2);
  compute::parallel_items(batch, macs, [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) {
      matmul_block(ctx, op, out.scalar_type(), mat_of(self, i * self.strides()[0]),
                   mat_of(mat2, i * mat2.strides()[0]), c + i * block, 1.0, 0.0);
    }
  });
  return out;
}

// Writes `bias` broadcast to [m, n] into the contiguous out (any bias layout).
void fill_bias(const Tensor& bias, const Tensor& out, int64_t m, int64_t n) {
  int64_t sizes[2] = {m, n};
  int64_t ds[2] = {n, 1};
  int64_t ss[2] = {0, 0};
  const ssize_t r = bias.dim();
  if (r >= 1 && bias.sizes()[r - 1] != 1) {
    ss[1] = bias.strides()[r - 1];
  }
  if (r >= 2 && bias.sizes()[r - 2] != 1) {
    ss[0] = bias.strides()[r - 2];
  }
  strided_copy(2, sizes, nullptr, out.mutable_data_ptr(), ds, bias.const_data_ptr(), ss,
               static_cast<size_t>(out.element_size()));
}

// A Float bias that is one row of n contiguous floats broadcast over the rows of an [m, n]
// product ([n] or [1, n]), which the product can add as it stores C; else null.
const float* row_bias(const Tensor& bias, int64_t n) {
  if (bias.scalar_type() != ScalarType::Float || n <= 0 || bias.numel() != n || bias.dim() < 1 ||
      bias.dim() > 2 || bias.sizes()[bias.dim() - 1] != n ||
      (n > 1 && bias.strides()[bias.dim() - 1] != 1)) {
    return nullptr;
  }
  return bias.const_data_ptr<float>();
}

double scalar_double(const Scalar& s) {
  if (s.isFloatingPoint()) {
    return s.to<double>();
  }
  if (s.isBoolean()) {
    return s.to<bool>() ? 1.0 : 0.0;
  }
  return static_cast<double>(s.to<int64_t>());
}

Tensor& addmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat1,
                  const Tensor& mat2, const Scalar& beta, const Scalar& alpha, Tensor& out) {
  const char* op = log_name(addmm_out_name);
  if (!check_rank(ctx, op, "mat1", mat1, 2) || !check_rank(ctx, op, "mat2", mat2, 2) ||
      !check_mat_dtypes(ctx, op, mat1, "mat1", mat2, "mat2", out) ||
      !check_same_dtype(ctx, op, "self", self, "mat1", mat1)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, mat1.size(1) == mat2.size(0), InvalidArgument, out,
                      "%s: argument 'mat1' [%zd, %zd] and 'mat2' [%zd, %zd] cannot be multiplied",
                      op, mat1.size(0), mat1.size(1), mat2.size(0), mat2.size(1));
  const int64_t m = mat1.size(0), n = mat2.size(1);
  const SizesType shape[2] = {static_cast<SizesType>(m), static_cast<SizesType>(n)};
  ET_KERNEL_CHECK_MSG(
      ctx, self.dim() <= 2 && broadcastable_to(self.sizes(), ArrayRef<SizesType>(shape, 2)),
      InvalidArgument, out, "%s: argument 'self' does not broadcast to [%lld, %lld]", op,
      static_cast<long long>(m), static_cast<long long>(n));
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, 2))) {
    return out;
  }
  const double b = scalar_double(beta), a = scalar_double(alpha);
  const float* col_bias = a == 1.0 && b == 1.0 ? row_bias(self, n) : nullptr;
  if (b != 0.0 && col_bias == nullptr) {
    fill_bias(self, out, m, n);
  }
  matmul_block(ctx, op, out.scalar_type(), mat_of(mat1), mat_of(mat2),
               static_cast<char*>(out.mutable_data_ptr()), a, b, prepared_b(ctx, mat_of(mat2)),
               col_bias);
  return out;
}

// linear's weight [n, k] as B = weight^T [k, n].
Mat linear_weight_mat(const Tensor& weight) {
  return Mat{static_cast<const char*>(weight.const_data_ptr()), weight.size(1), weight.size(0),
             weight.strides()[1], weight.strides()[0]};
}

// linear.out(input, weight, bias?, out): out = input @ weight^T + bias.
Tensor& linear_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                   const optional<Tensor>& bias, Tensor& out) {
  const char* op = log_name(linear_out_name);
  if (!check_rank(ctx, op, "weight", weight, 2) ||
      !check_mat_dtypes(ctx, op, input, "input", weight, "weight", out) ||
      !check_contiguous(ctx, op, "input", input)) {
    return out;
  }
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 1 && input.sizes()[input.dim() - 1] == weight.size(1),
                      InvalidArgument, out,
                      "%s: argument 'input' last dim does not match 'weight' [%zd, %zd]", op,
                      weight.size(0), weight.size(1));
  const int64_t n = weight.size(0), k = weight.size(1);
  SizesType shape[kMaxDim];
  for (ssize_t i = 0; i + 1 < input.dim(); ++i) {
    shape[i] = input.sizes()[i];
  }
  shape[input.dim() - 1] = static_cast<SizesType>(n);
  if (!resize_out(ctx, op, out, ArrayRef<SizesType>(shape, static_cast<size_t>(input.dim())))) {
    return out;
  }
  const int64_t m = k > 0 ? input.numel() / k : (n > 0 ? out.numel() / n : 0);
  double beta = 0.0;
  const float* col_bias = nullptr;
  if (bias.has_value()) {
    ET_KERNEL_CHECK_MSG(ctx, bias->scalar_type() == out.scalar_type(), InvalidArgument, out,
                        "%s: argument 'bias' must have dtype %s", op,
                        dtype_name(out.scalar_type()));
    ET_KERNEL_CHECK_MSG(ctx, bias->dim() <= 1 && (bias->numel() == n || bias->numel() == 1),
                        InvalidArgument, out, "%s: argument 'bias' must have %lld elements", op,
                        static_cast<long long>(n));
    col_bias = row_bias(*bias, n);
    if (col_bias == nullptr) {
      fill_bias(*bias, out, m, n);
    }
    beta = 1.0;
  }
  const Mat a{static_cast<const char*>(input.const_data_ptr()), m, k, k, 1};
  const Mat b = linear_weight_mat(weight);
  matmul_block(ctx, op, out.scalar_type(), a, b, static_cast<char*>(out.mutable_data_ptr()), 1.0,
               beta, prepared_b(ctx, b), col_bias);
  return out;
}

// ---- Load-time preparation: pack a constant float32 B once.

// The tensor argument `i` of a call being prepared if it is a constant 2-D Float tensor.
const Tensor* constant_float_matrix(KernelRuntimeContext& ctx, Span<EValue*> args, size_t i) {
  if (i >= args.size() || i >= 63 || (ctx.internal_read_only_args() >> i & 1u) == 0 ||
      !args[i]->isTensor()) {
    return nullptr;
  }
  const Tensor& t = args[i]->toTensor();
  return t.scalar_type() == ScalarType::Float && t.dim() == 2 && t.const_data_ptr() != nullptr
             ? &t
             : nullptr;
}

// Packs B for an m-row product if SGEMM would pack it on every call.
void prepare_b(PreparedConstants& cache, Trans ta, int64_t m, const Mat& b) {
  const GemmView vb = gemm_view(b);
  const compute::Isa isa = compute::active_isa();
  if (!vb.ok || !compute::sgemm_packs_b(isa, ta, vb.t, m, b.cols, b.rows)) {
    return;
  }
  void* dst = cache.add(b.p, kPackedBTag + static_cast<uint32_t>(vb.t),
                        compute::sgemm_packed_b_size(isa, b.rows, b.cols));
  if (dst != nullptr) {
    compute::sgemm_pack_b(isa, vb.t, b.rows, b.cols, reinterpret_cast<const float*>(b.p), vb.ld,
                          dst);
  }
}

// The rows (and Trans) of A as the call will see it: the planned shape of its argument.
bool a_rows(Span<EValue*> args, size_t i, int64_t k, bool flatten, int64_t* m, Trans* ta) {
  if (i >= args.size() || !args[i]->isTensor()) {
    return false;
  }
  const Tensor& a = args[i]->toTensor();
  if (flatten) {  // linear: every leading dim is a row
    *m = k > 0 ? a.numel() / k : 0;
    *ta = Trans::kNo;
    return true;
  }
  if (a.dim() != 2) {
    return false;
  }
  const GemmView va = gemm_view(mat_of(a));
  *m = a.size(0);
  *ta = va.t;
  return va.ok;
}

// Packs the constant B of a call: argument kB (linear: the weight, B = weight^T) times the A
// of argument kA.
//   linear.out(input, weight, bias?, out): kA = 0, kB = 1, kLinear
//   addmm.out(self, mat1, mat2, beta, alpha, out): kA = 1, kB = 2
//   mm.out(self, mat2, out): kA = 0, kB = 1
template <size_t kA, size_t kB, bool kLinear>
void prepare_matmul(KernelRuntimeContext& ctx, Span<EValue*> args, PreparedConstants& cache) {
  const Tensor* b = constant_float_matrix(ctx, args, kB);
  if (b == nullptr) {
    return;
  }
  const Mat bm = kLinear ? linear_weight_mat(*b) : mat_of(*b);
  int64_t m = 0;
  Trans ta = Trans::kNo;
  if (a_rows(args, kA, bm.rows, kLinear, &m, &ta)) {
    prepare_b(cache, ta, m, bm);
  }
}

// ---- Fusion at load: mm / addmm / linear followed by the decomposed SiLU / hardswish /
// hardsigmoid (detail/activation_run.h) runs as the product, then the activation over its
// output while it is in cache, as one instruction. Bit-identical: compute/activation.h computes
// what the decomposed operators do, on the same floats.

// The plain kernels, boxed as the registry calls them.
const OpFunction g_mm_boxed =
    ::executorch::extension::make_boxed_kernel(mm_out_name, EXECUTORCH_FN(mm_out, mm_out_name)).op_;
const OpFunction g_addmm_boxed = ::executorch::extension::make_boxed_kernel(
                                     addmm_out_name, EXECUTORCH_FN(addmm_out, addmm_out_name))
                                     .op_;
const OpFunction g_linear_boxed = ::executorch::extension::make_boxed_kernel(
                                      linear_out_name, EXECUTORCH_FN(linear_out, linear_out_name))
                                      .op_;

// kN: the product's argument count (its out second to last, returned last).
template <size_t kN, const OpFunction* kBoxed, compute::Activation kAct>
void gemm_activation_fused(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() <= kN || !args[kN - 1]->isTensor()) {
    ET_LOG(Error, "fused matrix product: unexpected arguments");
    ctx.fail(Error::InvalidProgram);
    return;
  }
  (*kBoxed)(ctx, Span<EValue*>(args.data(), kN));
  if (ctx.failure_state() != Error::Ok) {
    return;
  }
  Tensor& out = args[kN - 1]->toTensor();
  EValue* const run_out = detail::run_output(args);
  if (run_out == args[kN - 1]) {
    compute::apply_activation(kAct, out.const_data_ptr<float>(), out.mutable_data_ptr<float>(),
                              out.numel());
  } else if (run_out->isTensor()) {  // the product kept its own output (see RunFuser)
    detail::activation_into(ctx, "fused matrix product", kAct, out, run_out->toTensor());
  }
}

template <size_t kN, const OpFunction* kBoxed>
::executorch::runtime::FusedKernel fuse_gemm_run(
    Span<EValue*> first, Span<const ::executorch::runtime::FusionCandidate> next,
    size_t* n_consumed) {
  // Float out, contiguous (the kernels require it), so the activation runs over numel floats.
  if (first.size() != kN || !first[kN - 1]->isTensor() ||
      first[kN - 1]->toTensor().scalar_type() != ScalarType::Float ||
      !is_contiguous_dim_order(first[kN - 1]->toTensor())) {
    return nullptr;
  }
  const compute::Activation act = detail::match_activation_run(first[kN - 1], next, n_consumed);
  const EValue* run_out = detail::run_output(next[*n_consumed > 0 ? *n_consumed - 1 : 0].args);
  if (!run_out->isTensor() || !is_contiguous_dim_order(run_out->toTensor())) {
    return nullptr;
  }
  switch (act) {
    case compute::Activation::kSilu:
      return gemm_activation_fused<kN, kBoxed, compute::Activation::kSilu>;
    case compute::Activation::kHardswish:
      return gemm_activation_fused<kN, kBoxed, compute::Activation::kHardswish>;
    case compute::Activation::kHardsigmoid:
      return gemm_activation_fused<kN, kBoxed, compute::Activation::kHardsigmoid>;
    case compute::Activation::kNone:
      break;
  }
  return nullptr;
}

bool register_run_fusers() {
  using ::executorch::runtime::register_run_fuser;
  const bool mm = register_run_fuser(mm_out_name, fuse_gemm_run<4, &g_mm_boxed>) == Error::Ok;
  const bool addmm =
      register_run_fuser(addmm_out_name, fuse_gemm_run<7, &g_addmm_boxed>) == Error::Ok;
  const bool linear =
      register_run_fuser(linear_out_name, fuse_gemm_run<5, &g_linear_boxed>) == Error::Ok;
  return mm && addmm && linear;
}

[[maybe_unused]] const bool g_run_fusers_registered = register_run_fusers();

bool register_preparers() {
  using ::executorch::runtime::register_constant_preparer;
  // A failure (e.g. a second copy of this library) only means no packing ahead of time.
  const bool ok =
      register_constant_preparer(linear_out_name, prepare_matmul<0, 1, true>) == Error::Ok;
  const bool ok2 =
      register_constant_preparer(addmm_out_name, prepare_matmul<1, 2, false>) == Error::Ok;
  const bool ok3 =
      register_constant_preparer(mm_out_name, prepare_matmul<0, 1, false>) == Error::Ok;
  return ok && ok2 && ok3;
}

[[maybe_unused]] const bool g_preparers_registered = register_preparers();

}  // namespace

ETK_REGISTER_KERNEL(mm_out_name, mm_out);
ETK_REGISTER_KERNEL(bmm_out_name, bmm_out);
ETK_REGISTER_KERNEL(addmm_out_name, addmm_out);
ETK_REGISTER_KERNEL(linear_out_name, linear_out);

}  // namespace kernels
}  // namespace executorch
