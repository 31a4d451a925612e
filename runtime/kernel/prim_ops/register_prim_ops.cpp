/*
 * The prim ops: scalar (SymInt/SymFloat/SymBool) arithmetic the exporter
 * emits for dynamic shapes and control flow, plus tensor-metadata ops
 * (sym_size, sym_numel, _local_scalar_dense) and the tensor prim ops
 * (et_view, et_copy_index). libexecutorch.so.1 registers them from a static
 * initializer, so every program can use them without a kernel library.
 *
 * Calling convention: the arguments in schema order, then the result slot,
 * which the op overwrites with a new Int/Double/Bool EValue of the kind the
 * slot already holds (store_result). Every op checks its argument count and
 * kinds and reports problems through context.fail().
 */
#include <cmath>
#include <cstdint>
#include <limits>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/kernel/prim_ops/detail/prim_ops.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace prim_ops {
namespace {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;

bool arity(
    KernelRuntimeContext& ctx, Span<EValue*> args, size_t n, const char* op) {
  if (args.size() != n) {
    ET_LOG(Error, "%s: expected %zu arguments, got %zu", op, n, args.size());
    ctx.fail(Error::InvalidProgram);
    return false;
  }
  return true;
}

void bad_kind(KernelRuntimeContext& ctx, const char* op, const EValue& a) {
  ET_LOG(
      Error,
      "%s: unsupported argument kind %u",
      op,
      static_cast<unsigned>(a.tag));
  ctx.fail(Error::InvalidType);
}

void bad_kinds(
    KernelRuntimeContext& ctx,
    const char* op,
    const EValue& a,
    const EValue& b) {
  ET_LOG(
      Error,
      "%s: unsupported argument kinds %u, %u",
      op,
      static_cast<unsigned>(a.tag),
      static_cast<unsigned>(b.tag));
  ctx.fail(Error::InvalidType);
}

/// Writes an op's result into its slot. A slot keeps the kind the program
/// declared (the loader relies on it: a tensor slot stays a tensor), so a
/// result of another kind is refused and the slot is left as it was.
void store_result(
    KernelRuntimeContext& ctx, EValue* slot, const EValue& result) {
  if (slot->tag != result.tag) {
    ET_LOG(
        Error,
        "prim op: a result of kind %u cannot go into a slot of kind %u",
        static_cast<unsigned>(result.tag),
        static_cast<unsigned>(slot->tag));
    ctx.fail(Error::InvalidProgram);
    return;
  }
  *slot = result;
}

bool is_number(const EValue& v) {
  return v.isInt() || v.isDouble();
}

double as_double(const EValue& v) {
  return v.isInt() ? static_cast<double>(v.toInt()) : v.toDouble();
}

/// Two's-complement wrapping int64 arithmetic (no signed-overflow UB).
int64_t wrap(uint64_t v) {
  return static_cast<int64_t>(v);
}

bool double_to_int64(double d, int64_t* out) {
  // [-2^63, 2^63) is exactly representable at both ends.
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
    return false;
  }
  *out = static_cast<int64_t>(d);
  return true;
}

/// Python floor division / modulo on ints. False on division by zero or
/// INT64_MIN / -1.
bool int_floordiv(int64_t a, int64_t b, int64_t* q) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) {
    return false;
  }
  int64_t r = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) {
    r -= 1;
  }
  *q = r;
  return true;
}

bool int_mod(int64_t a, int64_t b, int64_t* m) {
  if (b == 0) {
    return false;
  }
  if (b == -1) {
    *m = 0;
    return true;
  }
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) {
    r += b;
  }
  *m = r;
  return true;
}

double double_floordiv(double a, double b) {
  if (b == 0) {
    return std::signbit(a) != std::signbit(b) ? -INFINITY : INFINITY;
  }
  const double m = std::fmod(a, b);
  double q = (a - m) / b;
  if (m != 0 && (std::signbit(b) != std::signbit(m))) {
    q -= 1;
  }
  return q;
}

// ---------------------------------------------------------------------------
// Binary arithmetic

enum class Arith { Add, Sub, Mul };

template <Arith kOp>
void arith(KernelRuntimeContext& ctx, Span<EValue*> args) {
  static constexpr const char* kName = kOp == Arith::Add   ? "add.Scalar"
                                       : kOp == Arith::Sub ? "sub.Scalar"
                                                           : "mul.Scalar";
  if (!arity(ctx, args, 3, kName)) {
    return;
  }
  const EValue& a = *args[0];
  const EValue& b = *args[1];
  if (a.isInt() && b.isInt()) {
    const uint64_t x = static_cast<uint64_t>(a.toInt());
    const uint64_t y = static_cast<uint64_t>(b.toInt());
    store_result(
        ctx,
        args[2],
        EValue(wrap(
            kOp == Arith::Add   ? x + y
            : kOp == Arith::Sub ? x - y
                                : x * y)));
  } else if (is_number(a) && is_number(b)) {
    const double x = as_double(a);
    const double y = as_double(b);
    store_result(
        ctx,
        args[2],
        EValue(
            kOp == Arith::Add   ? x + y
            : kOp == Arith::Sub ? x - y
                                : x * y));
  } else {
    bad_kinds(ctx, kName, a, b);
  }
}

void floordiv_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 3, "floordiv.Scalar")) {
    return;
  }
  const EValue& a = *args[0];
  const EValue& b = *args[1];
  if (a.isInt() && b.isInt()) {
    int64_t q = 0;
    if (!int_floordiv(a.toInt(), b.toInt(), &q)) {
      ET_LOG(Error, "floordiv.Scalar: integer division by zero or overflow");
      ctx.fail(Error::InvalidArgument);
      return;
    }
    store_result(ctx, args[2], EValue(q));
  } else if (is_number(a) && is_number(b)) {
    store_result(
        ctx, args[2], EValue(double_floordiv(as_double(a), as_double(b))));
  } else {
    bad_kinds(ctx, "floordiv.Scalar", a, b);
  }
}

void floordiv_int(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 3, "floordiv.int")) {
    return;
  }
  if (!args[0]->isInt() || !args[1]->isInt()) {
    bad_kinds(ctx, "floordiv.int", *args[0], *args[1]);
    return;
  }
  int64_t q = 0;
  if (!int_floordiv(args[0]->toInt(), args[1]->toInt(), &q)) {
    ET_LOG(Error, "floordiv.int: division by zero or overflow");
    ctx.fail(Error::InvalidArgument);
    return;
  }
  store_result(ctx, args[2], EValue(q));
}

void mod_impl(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op) {
  if (!arity(ctx, args, 3, op)) {
    return;
  }
  if (!args[0]->isInt() || !args[1]->isInt()) {
    bad_kinds(ctx, op, *args[0], *args[1]);
    return;
  }
  int64_t m = 0;
  if (!int_mod(args[0]->toInt(), args[1]->toInt(), &m)) {
    ET_LOG(Error, "%s: modulo by zero", op);
    ctx.fail(Error::InvalidArgument);
    return;
  }
  store_result(ctx, args[2], EValue(m));
}

void mod_int(KernelRuntimeContext& ctx, Span<EValue*> args) {
  mod_impl(ctx, args, "mod.int");
}

void mod_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  mod_impl(ctx, args, "mod.Scalar");
}

void truediv_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 3, "truediv.Scalar")) {
    return;
  }
  if (!is_number(*args[0]) || !is_number(*args[1])) {
    bad_kinds(ctx, "truediv.Scalar", *args[0], *args[1]);
    return;
  }
  store_result(ctx, args[2], EValue(as_double(*args[0]) / as_double(*args[1])));
}

enum class Cmp { Eq, Gt, Lt, Ge, Le };

template <typename T>
bool compare(Cmp op, T x, T y) {
  switch (op) {
    case Cmp::Eq:
      return x == y;
    case Cmp::Gt:
      return x > y;
    case Cmp::Lt:
      return x < y;
    case Cmp::Ge:
      return x >= y;
    case Cmp::Le:
      return x <= y;
  }
  return false;
}

template <Cmp kOp>
void cmp(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 3, "comparison.Scalar")) {
    return;
  }
  const EValue& a = *args[0];
  const EValue& b = *args[1];
  if (a.isInt() && b.isInt()) {
    store_result(ctx, args[2], EValue(compare(kOp, a.toInt(), b.toInt())));
  } else if (is_number(a) && is_number(b)) {
    store_result(
        ctx, args[2], EValue(compare(kOp, as_double(a), as_double(b))));
  } else if (a.isBool() && b.isBool()) {
    store_result(ctx, args[2], EValue(compare(kOp, a.toBool(), b.toBool())));
  } else {
    bad_kinds(ctx, "comparison.Scalar", a, b);
  }
}

template <bool kMax>
void sym_minmax(KernelRuntimeContext& ctx, Span<EValue*> args) {
  const char* op = kMax ? "sym_max.Scalar" : "sym_min.Scalar";
  if (!arity(ctx, args, 3, op)) {
    return;
  }
  const EValue& a = *args[0];
  const EValue& b = *args[1];
  if (a.isInt() && b.isInt()) {
    const int64_t x = a.toInt();
    const int64_t y = b.toInt();
    store_result(
        ctx, args[2], EValue(kMax ? (x > y ? x : y) : (x < y ? x : y)));
  } else if (is_number(a) && is_number(b)) {
    const double x = as_double(a);
    const double y = as_double(b);
    store_result(
        ctx, args[2], EValue(kMax ? std::fmax(x, y) : std::fmin(x, y)));
  } else {
    bad_kinds(ctx, op, a, b);
  }
}

// ---------------------------------------------------------------------------
// Unary

void neg_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 2, "neg.Scalar")) {
    return;
  }
  const EValue& a = *args[0];
  if (a.isInt()) {
    store_result(
        ctx, args[1], EValue(wrap(0 - static_cast<uint64_t>(a.toInt()))));
  } else if (a.isDouble()) {
    store_result(ctx, args[1], EValue(-a.toDouble()));
  } else {
    bad_kind(ctx, "neg.Scalar", a);
  }
}

void sym_not(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 2, "sym_not.Scalar")) {
    return;
  }
  if (!args[0]->isBool()) {
    bad_kind(ctx, "sym_not.Scalar", *args[0]);
    return;
  }
  store_result(ctx, args[1], EValue(!args[0]->toBool()));
}

void sym_ite(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 4, "sym_ite.Scalar")) {
    return;
  }
  if (!args[0]->isBool()) {
    bad_kind(ctx, "sym_ite.Scalar", *args[0]);
    return;
  }
  const EValue& chosen = args[0]->toBool() ? *args[1] : *args[2];
  if (!chosen.isScalar()) {
    bad_kind(ctx, "sym_ite.Scalar", chosen);
    return;
  }
  store_result(ctx, args[3], chosen);
}

void sym_float(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 2, "sym_float.Scalar")) {
    return;
  }
  const EValue& a = *args[0];
  if (a.isInt()) {
    store_result(ctx, args[1], EValue(static_cast<double>(a.toInt())));
  } else if (a.isDouble()) {
    store_result(ctx, args[1], EValue(a.toDouble()));
  } else if (a.isBool()) {
    store_result(ctx, args[1], EValue(a.toBool() ? 1.0 : 0.0));
  } else {
    bad_kind(ctx, "sym_float.Scalar", a);
  }
}

void sym_int(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 2, "sym_int.Scalar")) {
    return;
  }
  const EValue& a = *args[0];
  if (a.isInt()) {
    store_result(ctx, args[1], EValue(a.toInt()));
  } else if (a.isBool()) {
    store_result(
        ctx, args[1], EValue(static_cast<int64_t>(a.toBool() ? 1 : 0)));
  } else if (a.isDouble()) {
    int64_t v = 0;
    if (!double_to_int64(std::trunc(a.toDouble()), &v)) {
      ET_LOG(Error, "sym_int.Scalar: %g does not fit int64", a.toDouble());
      ctx.fail(Error::InvalidArgument);
      return;
    }
    store_result(ctx, args[1], EValue(v));
  } else {
    bad_kind(ctx, "sym_int.Scalar", a);
  }
}

enum class Rounding { Ceil, Round, Trunc };

template <Rounding kMode>
void to_int(KernelRuntimeContext& ctx, Span<EValue*> args) {
  const char* op = kMode == Rounding::Ceil    ? "ceil.Scalar"
                   : kMode == Rounding::Round ? "round.Scalar"
                                              : "trunc.Scalar";
  if (!arity(ctx, args, 2, op)) {
    return;
  }
  const EValue& a = *args[0];
  if (a.isInt()) {
    store_result(ctx, args[1], EValue(a.toInt()));
    return;
  }
  if (!a.isDouble()) {
    bad_kind(ctx, op, a);
    return;
  }
  const double x = a.toDouble();
  // Round: half to even, as Python's round().
  const double r = kMode == Rounding::Ceil    ? std::ceil(x)
                   : kMode == Rounding::Round ? std::nearbyint(x)
                                              : std::trunc(x);
  int64_t v = 0;
  if (!double_to_int64(r, &v)) {
    ET_LOG(Error, "%s: %g does not fit int64", op, x);
    ctx.fail(Error::InvalidArgument);
    return;
  }
  store_result(ctx, args[1], EValue(v));
}

// ---------------------------------------------------------------------------
// Tensor metadata

void sym_size_int(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 3, "sym_size.int")) {
    return;
  }
  if (!args[0]->isTensor() || !args[1]->isInt()) {
    bad_kinds(ctx, "sym_size.int", *args[0], *args[1]);
    return;
  }
  const Tensor& t = args[0]->toTensor();
  int64_t dim = args[1]->toInt();
  const int64_t rank = static_cast<int64_t>(t.dim());
  if (dim < 0) {
    dim += rank;
  }
  if (dim < 0 || dim >= rank) {
    ET_LOG(
        Error,
        "sym_size.int: dim %lld is out of range for rank %lld",
        static_cast<long long>(args[1]->toInt()),
        static_cast<long long>(rank));
    ctx.fail(Error::InvalidArgument);
    return;
  }
  store_result(
      ctx,
      args[2],
      EValue(static_cast<int64_t>(t.size(static_cast<ssize_t>(dim)))));
}

void sym_numel(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 2, "sym_numel")) {
    return;
  }
  if (!args[0]->isTensor()) {
    bad_kind(ctx, "sym_numel", *args[0]);
    return;
  }
  store_result(
      ctx, args[1], EValue(static_cast<int64_t>(args[0]->toTensor().numel())));
}

template <typename T>
EValue first_as_int(const Tensor& t) {
  return EValue(static_cast<int64_t>(t.const_data_ptr<T>()[0]));
}

template <typename T>
EValue first_as_double(const Tensor& t) {
  return EValue(static_cast<double>(t.const_data_ptr<T>()[0]));
}

void local_scalar_dense(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (!arity(ctx, args, 2, "_local_scalar_dense")) {
    return;
  }
  if (!args[0]->isTensor()) {
    bad_kind(ctx, "_local_scalar_dense", *args[0]);
    return;
  }
  const Tensor& t = args[0]->toTensor();
  if (t.numel() < 1 || t.const_data_ptr() == nullptr) {
    ET_LOG(Error, "_local_scalar_dense: the tensor has no element");
    ctx.fail(Error::InvalidArgument);
    return;
  }
  switch (t.scalar_type()) {
    case ScalarType::Byte:
      store_result(ctx, args[1], first_as_int<uint8_t>(t));
      break;
    case ScalarType::Char:
      store_result(ctx, args[1], first_as_int<int8_t>(t));
      break;
    case ScalarType::Short:
      store_result(ctx, args[1], first_as_int<int16_t>(t));
      break;
    case ScalarType::Int:
      store_result(ctx, args[1], first_as_int<int32_t>(t));
      break;
    case ScalarType::Long:
      store_result(ctx, args[1], first_as_int<int64_t>(t));
      break;
    case ScalarType::Float:
      store_result(ctx, args[1], first_as_double<float>(t));
      break;
    case ScalarType::Double:
      store_result(ctx, args[1], first_as_double<double>(t));
      break;
    case ScalarType::Half:
      store_result(ctx, args[1], first_as_double<executorch::aten::Half>(t));
      break;
    case ScalarType::BFloat16:
      store_result(
          ctx, args[1], first_as_double<executorch::aten::BFloat16>(t));
      break;
    case ScalarType::Bool:
      store_result(
          ctx,
          args[1],
          EValue(static_cast<bool>(
              *static_cast<const uint8_t*>(t.const_data_ptr()) != 0)));
      break;
    default:
      ET_LOG(
          Error,
          "_local_scalar_dense: dtype %d is not supported",
          static_cast<int>(t.scalar_type()));
      ctx.fail(Error::InvalidArgument);
      break;
  }
}

const Kernel kPrimOps[] = {
    Kernel("aten::sym_size.int", sym_size_int),
    Kernel("aten::sym_numel", sym_numel),
    Kernel("aten::_local_scalar_dense", local_scalar_dense),
    Kernel("executorch_prim::add.Scalar", arith<Arith::Add>),
    Kernel("executorch_prim::sub.Scalar", arith<Arith::Sub>),
    Kernel("executorch_prim::mul.Scalar", arith<Arith::Mul>),
    Kernel("executorch_prim::floordiv.Scalar", floordiv_scalar),
    Kernel("executorch_prim::truediv.Scalar", truediv_scalar),
    Kernel("executorch_prim::eq.Scalar", cmp<Cmp::Eq>),
    Kernel("executorch_prim::gt.Scalar", cmp<Cmp::Gt>),
    Kernel("executorch_prim::lt.Scalar", cmp<Cmp::Lt>),
    Kernel("executorch_prim::ge.Scalar", cmp<Cmp::Ge>),
    Kernel("executorch_prim::le.Scalar", cmp<Cmp::Le>),
    Kernel("executorch_prim::neg.Scalar", neg_scalar),
    Kernel("executorch_prim::sym_not.Scalar", sym_not),
    Kernel("executorch_prim::sym_ite.Scalar", sym_ite),
    Kernel("executorch_prim::sym_max.Scalar", sym_minmax<true>),
    Kernel("executorch_prim::sym_min.Scalar", sym_minmax<false>),
    Kernel("executorch_prim::sym_float.Scalar", sym_float),
    Kernel("executorch_prim::sym_int.Scalar", sym_int),
    Kernel("executorch_prim::mod.Scalar", mod_scalar),
    Kernel("executorch_prim::ceil.Scalar", to_int<Rounding::Ceil>),
    Kernel("executorch_prim::round.Scalar", to_int<Rounding::Round>),
    Kernel("executorch_prim::trunc.Scalar", to_int<Rounding::Trunc>),
    Kernel("executorch_prim::floordiv.int", floordiv_int),
    Kernel("executorch_prim::mod.int", mod_int),
    Kernel("executorch_prim::et_copy_index.tensor", et_copy_index),
    Kernel("executorch_prim::et_view.default", et_view),
};

// The two tensor prim ops do not follow the position rule Method load
// assumes for kernels without a record (the last argument is written):
// et_copy_index writes (and grows) its first argument, et_view writes
// nothing (it points its result at the viewed data).
Error record_tensor_prim_op_write_sets() {
  Error err = internal::record_kernel_write_set(
      et_copy_index, internal::KernelWriteSet{3, uint64_t{1} << 0});
  if (err == Error::Ok) {
    err = internal::record_kernel_write_set(
        et_view, internal::KernelWriteSet{3, 0});
  }
  return err;
}

const bool kPrimOpsRegistered = [] {
  Error err = register_kernels(
      Span<const Kernel>(kPrimOps, sizeof(kPrimOps) / sizeof(kPrimOps[0])));
  if (err == Error::Ok) {
    err = record_tensor_prim_op_write_sets();
  }
  if (err != Error::Ok) {
    ET_LOG(
        Error,
        "registering the prim ops failed: error 0x%x",
        static_cast<unsigned>(err));
  }
  return err == Error::Ok;
}();

}  // namespace
}  // namespace prim_ops
}  // namespace runtime
}  // namespace executorch
