// Test kernels and log capture (see test_support.h).
#include "test_support.h"

#include <cstdio>
#include <cstring>
#include <vector>

#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/platform/platform.h>

#include "../common/log_capture.h"

namespace test {

using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

namespace {

void store(Tensor& t, size_t i, double v) {
  void* p = t.mutable_data_ptr();
  switch (t.scalar_type()) {
    case ScalarType::Float:
      static_cast<float*>(p)[i] = static_cast<float>(v);
      break;
    case ScalarType::Double:
      static_cast<double*>(p)[i] = v;
      break;
    case ScalarType::Int:
      static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
      break;
    case ScalarType::Long:
      static_cast<int64_t*>(p)[i] = static_cast<int64_t>(v);
      break;
    case ScalarType::Half:
      static_cast<executorch::aten::Half*>(p)[i] = executorch::aten::Half(static_cast<float>(v));
      break;
    case ScalarType::Bool:
      static_cast<bool*>(p)[i] = v != 0;
      break;
    default:
      break;
  }
}

double scalar(const EValue& v) {
  return v.isInt()      ? static_cast<double>(v.toInt())
         : v.isDouble() ? v.toDouble()
                        : (v.toBool() ? 1.0 : 0.0);
}

/// out = a op (alpha * b) with broadcasting, computed in double.
template <typename Op>
void binary(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, double alpha, Tensor& out,
            Op op) {
  const ssize_t rank = std::max(a.dim(), b.dim());
  std::vector<SizesType> shape(static_cast<size_t>(rank));
  for (ssize_t d = 0; d < rank; ++d) {
    const ssize_t da = d - (rank - a.dim());
    const ssize_t db = d - (rank - b.dim());
    const SizesType sa = da >= 0 ? a.size(da) : 1;
    const SizesType sb = db >= 0 ? b.size(db) : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      ctx.fail(Error::InvalidArgument);
      return;
    }
    shape[static_cast<size_t>(d)] = sa == 1 ? sb : sa;
  }
  if (out.dim() != rank ||
      executorch::runtime::resize_tensor(out, {shape.data(), shape.size()}) != Error::Ok) {
    ctx.fail(Error::InvalidArgument);
    return;
  }
  const size_t n = static_cast<size_t>(out.numel());
  if (n > 0 && (out.mutable_data_ptr() == nullptr || a.const_data_ptr() == nullptr ||
                b.const_data_ptr() == nullptr)) {
    ctx.fail(Error::InvalidState);
    return;
  }
  std::vector<size_t> idx(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < n; ++i) {
    size_t ia = 0, ib = 0, sa = 1, sb = 1;
    for (ssize_t d = rank - 1; d >= 0; --d) {
      const ssize_t da = d - (rank - a.dim());
      const ssize_t db = d - (rank - b.dim());
      if (da >= 0) {
        if (a.size(da) != 1)
          ia += idx[static_cast<size_t>(d)] * sa;
        sa *= static_cast<size_t>(a.size(da));
      }
      if (db >= 0) {
        if (b.size(db) != 1)
          ib += idx[static_cast<size_t>(d)] * sb;
        sb *= static_cast<size_t>(b.size(db));
      }
    }
    store(out, i, op(element(a, ia), alpha * element(b, ib)));
    for (ssize_t d = rank - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < static_cast<size_t>(shape[static_cast<size_t>(d)]))
        break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
}

// aten::add.out(self, other, alpha, out) + return slot
void add_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() != 5) {
    ctx.fail(Error::InvalidProgram);
    return;
  }
  Tensor out = args[3]->toTensor();
  binary(ctx, args[0]->toTensor(), args[1]->toTensor(), scalar(*args[2]), out,
         [](double x, double y) { return x + y; });
}

// aten::mul.out(self, other, out) + return slot
void mul_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() != 4) {
    ctx.fail(Error::InvalidProgram);
    return;
  }
  Tensor out = args[2]->toTensor();
  binary(ctx, args[0]->toTensor(), args[1]->toTensor(), 1.0, out,
         [](double x, double y) { return x * y; });
}

// aten::copy_(self, src, non_blocking) + return slot: self = src (broadcast).
void copy_(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() != 4) {
    ctx.fail(Error::InvalidProgram);
    return;
  }
  Tensor self = args[0]->toTensor();
  binary(ctx, self, args[1]->toTensor(), 1.0, self, [](double, double y) { return y; });
}

// dim_order_ops::_to_dim_order_copy.out(self, non_blocking, dim_order, out)
// + return slot: a dtype-converting copy (contiguous dim orders only).
void to_dim_order_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() != 5) {
    ctx.fail(Error::InvalidProgram);
    return;
  }
  Tensor out = args[3]->toTensor();
  const Tensor& self = args[0]->toTensor();
  binary(ctx, self, self, 1.0, out, [](double x, double) { return x; });
}

}  // namespace

double element(const Tensor& t, size_t i) {
  const void* p = t.const_data_ptr();
  switch (t.scalar_type()) {
    case ScalarType::Float:
      return static_cast<const float*>(p)[i];
    case ScalarType::Double:
      return static_cast<const double*>(p)[i];
    case ScalarType::Int:
      return static_cast<const int32_t*>(p)[i];
    case ScalarType::Long:
      return static_cast<double>(static_cast<const int64_t*>(p)[i]);
    case ScalarType::Half:
      return static_cast<float>(static_cast<const executorch::aten::Half*>(p)[i]);
    case ScalarType::Bool:
      return static_cast<const bool*>(p)[i] ? 1.0 : 0.0;
    default:
      return 0;
  }
}

void register_test_kernels() {
  static const bool once = [] {
    static const Kernel kernels[] = {
        Kernel("aten::add.out", add_out),
        Kernel("aten::mul.out", mul_out),
        Kernel("aten::copy_", copy_),
        Kernel("dim_order_ops::_to_dim_order_copy.out", to_dim_order_copy_out),
    };
    return executorch::runtime::register_kernels(Span<const Kernel>(kernels, 4)) == Error::Ok;
  }();
  (void)once;
  (void)log_capture_detail::registered;
}

bool is_test_kernel(const std::string& op) {
  return op == "aten::add.out" || op == "aten::mul.out" || op == "aten::copy_" ||
         op == "dim_order_ops::_to_dim_order_copy.out";
}

std::string logs() {
  return captured_logs();
}

void clear_logs() {
  clear_captured_logs();
}

}  // namespace test
