/*
 * Kernels and the process-wide kernel registry.
 *
 * A kernel library registers its kernels from a static initializer:
 *
 *   static const Kernel kernels[] = {
 *       Kernel("aten::add.out", add_out_boxed),
 *       Kernel("aten::add.out", "v1/6;0,1|6;0,1|6;0,1", add_out_float_2d),
 *   };
 *   static const auto registered = register_kernels(kernels);
 *
 * When a Method is loaded, each operator of the program is resolved by name
 * and by the kernel key of its tensor arguments (see KernelKey): a kernel
 * registered with exactly that key wins, otherwise the one registered
 * without a key (the fallback), otherwise the lookup fails with
 * Error::OperatorMissing.
 *
 * The registry is owned by libexecutorch.so.1, so every library in the
 * process shares it. It may be used before main() and from any number of
 * threads at once. See operator_registry.cpp for the details.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>

#if defined(ET_OP_REGISTRY_DEBUG)
#include <ostream>
#endif

namespace executorch {
namespace runtime {

/// A boxed kernel: the context, then every argument of the instruction.
using OpFunction = void (*)(KernelRuntimeContext&, Span<EValue*>);

/// dtype and dim order of one tensor argument, the input of a kernel key.
struct TensorMeta {
  executorch::aten::ScalarType dtype_;
  Span<executorch::aten::DimOrderType> dim_order_;

  TensorMeta() = default;
  TensorMeta(
      executorch::aten::ScalarType dtype,
      Span<executorch::aten::DimOrderType> order)
      : dtype_(dtype), dim_order_(order) {}

  bool equals(const TensorMeta& other) const {
    if (dtype_ != other.dtype_ ||
        dim_order_.size() != other.dim_order_.size()) {
      return false;
    }
    for (size_t i = 0; i < dim_order_.size(); ++i) {
      if (dim_order_[i] != other.dim_order_[i]) {
        return false;
      }
    }
    return true;
  }

  bool operator==(const TensorMeta& other) const {
    return equals(other);
  }

  bool operator!=(const TensorMeta& other) const {
    return !equals(other);
  }

#if defined(ET_OP_REGISTRY_DEBUG)
  friend std::ostream& operator<<(std::ostream& os, const TensorMeta& meta) {
    os << "dtype " << static_cast<int>(meta.dtype_) << ", dim order [";
    for (size_t i = 0; i < meta.dim_order_.size(); ++i) {
      os << (i ? "," : "") << static_cast<int>(meta.dim_order_[i]);
    }
    return os << "]";
  }
#endif
};

/**
 * Which tensor dtypes and dim orders a kernel is specialized for.
 *
 * A default-constructed key is the fallback: the kernel serves every
 * argument combination that has no specialized kernel. Otherwise the key is
 * a string, compared exactly (the string is not copied):
 *
 *   "v1/" <group> ( "|" <group> )*      one group per tensor argument
 *   <group> = <dtype> ";" <d0> "," <d1> "," ...
 *
 * with the dtype (ScalarType value) and each dim-order entry in decimal
 * (0-99), e.g. "v1/6;0,1,2,3|6;0,1,2,3" for two contiguous rank-4 floats, or
 * "v1/6;" for one rank-0 float. An operator without tensor arguments has the
 * empty key "". internal::make_kernel_key_string() builds the string.
 */
struct KernelKey {
 public:
  /// The fallback key.
  constexpr KernelKey() = default;

  /// A specialized key; the string must outlive the registry entry.
  /* implicit */ constexpr KernelKey(const char* kernel_key_data)
      : kernel_key_data_(kernel_key_data) {}

  bool equals(const KernelKey& other) const {
    if (is_fallback() || other.is_fallback()) {
      return is_fallback() == other.is_fallback();
    }
    return std::strcmp(kernel_key_data_, other.kernel_key_data_) == 0;
  }

  bool operator==(const KernelKey& other) const {
    return equals(other);
  }

  bool operator!=(const KernelKey& other) const {
    return !equals(other);
  }

  constexpr bool is_fallback() const {
    return kernel_key_data_ == nullptr;
  }

  /// The key string, or null for the fallback key.
  constexpr const char* data() const {
    return kernel_key_data_;
  }

#if defined(ET_OP_REGISTRY_DEBUG)
  friend std::ostream& operator<<(std::ostream& os, const KernelKey& key) {
    return os << (key.is_fallback() ? "<fallback>" : key.kernel_key_data_);
  }
#endif

 private:
  const char* kernel_key_data_ = nullptr;
};

/**
 * A registry entry: operator name (e.g. "aten::add.out"), key and function.
 * Only pointers are stored, so the name and key strings must stay valid for
 * as long as the kernel is registered (string literals in practice).
 */
struct Kernel {
  const char* name_;
  KernelKey kernel_key_;
  OpFunction op_;

  constexpr explicit Kernel(const char* name, OpFunction func)
      : name_(name), kernel_key_(), op_(func) {}

  constexpr explicit Kernel(const char* name, KernelKey key, OpFunction func)
      : name_(name), kernel_key_(key), op_(func) {}

  constexpr Kernel() : name_(nullptr), kernel_key_(), op_(nullptr) {}
};

namespace internal {

/**
 * A buffer size that holds the key of 16 tensors of rank 16 whose dim-order
 * entries are at most two digits from 10 on, plus the terminating NUL. Keys
 * of more or larger tensors need a larger buffer.
 */
constexpr size_t kKernelKeyBufSize = 659;

/**
 * Writes the NUL-terminated kernel key string (format: see KernelKey) of the
 * given tensor arguments into buf. No tensors give the empty string.
 *
 * @retval Error::Ok written.
 * @retval Error::InvalidArgument a dtype or dim-order value is outside
 *     0-99, buf is null, or buf_size is too small; buf then holds the empty
 *     string if buf_size > 0.
 */
ET_API Error
make_kernel_key_string(Span<const TensorMeta> key, char* buf, size_t buf_size);

/**
 * Which arguments of its boxed call a kernel may write, when its
 * registration knows it. make_boxed_kernel() records one for every kernel it
 * wraps, from the C++ signature; the prim ops record theirs by hand. Method
 * load checks these places against constants, views and caller-bound inputs
 * (a kernel without a record is assumed to write its last argument, and its
 * first too when the operator name ends in '_').
 */
struct KernelWriteSet {
  /// Boxed arguments the kernel takes: schema arguments plus the return slot.
  uint32_t num_args;
  /// Bit i set: argument i (i < 64) may be written. Arguments from 64 on
  /// are never recorded: such a kernel gets no record.
  uint64_t written;
};

/**
 * Records the write set of the boxed function `fn` (a process-wide table
 * beside the kernel registry, same concurrency rules). Recording the same
 * set again is a no-op.
 *
 * @retval Error::InvalidArgument fn is null, num_args is above 64, or a
 *     different set is already recorded for fn.
 * @retval Error::RegistrationExceedingMaxKernels the table is full.
 */
ET_API Error record_kernel_write_set(OpFunction fn, KernelWriteSet set);

/// The write set recorded for `fn`, or null if none was.
ET_API const KernelWriteSet* find_kernel_write_set(OpFunction fn);

}  // namespace internal

/**
 * Whether get_op_function_from_registry(name, meta_list) would succeed.
 * Logs nothing.
 */
ET_API bool registry_has_op_function(
    const char* name, Span<const TensorMeta> meta_list = {});

/**
 * Resolves an operator: the kernel registered under `name` with exactly the
 * key of `meta_list`, else the one registered under `name` without a key.
 *
 * @retval Error::OperatorMissing neither exists.
 * @retval Error::InvalidArgument name is null, or meta_list has a value that
 *     cannot be part of a key (see make_kernel_key_string).
 */
ET_API Result<OpFunction> get_op_function_from_registry(
    const char* name, Span<const TensorMeta> meta_list = {});

/**
 * Like the two-argument form, but resolves within `kernel_list` (a
 * method-scoped kernel list; same rules) first and only then in the global
 * registry.
 */
ET_API Result<OpFunction> get_op_function_from_registry(
    const char* name,
    Span<const TensorMeta> meta_list,
    Span<const Kernel> kernel_list);

/**
 * Every registered kernel, in registration order. The span stays valid (the
 * registry only grows; entries never move), but does not include kernels
 * registered after the call.
 */
ET_API Span<const Kernel> get_registered_kernels();

/**
 * Registers a batch of kernels, all or nothing: if any kernel of the batch
 * is rejected, none of the batch is registered. Safe before main() and from
 * several threads at once. Errors are logged and returned, never fatal.
 *
 * @retval Error::Ok all registered.
 * @retval Error::InvalidArgument a kernel has a null or empty name or a null
 *     function.
 * @retval Error::RegistrationAlreadyRegistered a kernel with the same name and
 *     key is already registered, or appears twice in the batch.
 * @retval Error::RegistrationExceedingMaxKernels the batch does not fit in the
 *     registry (capacity: at least 4096 kernels).
 */
ET_NODISCARD ET_API Error register_kernels(const Span<const Kernel> kernels);

/// Registers one kernel; see register_kernels().
ET_NODISCARD inline Error register_kernel(const Kernel& kernel) {
  return register_kernels(Span<const Kernel>(&kernel, 1));
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Kernel;
using ::executorch::runtime::KernelKey;
using ::executorch::runtime::KernelRuntimeContext;
using ::executorch::runtime::OpFunction;
using ::executorch::runtime::TensorMeta;

/// DEPRECATED: use ::executorch::runtime::register_kernels().
ET_NODISCARD inline ::executorch::runtime::Error register_kernels(
    ::executorch::runtime::ArrayRef<Kernel> kernels) {
  return ::executorch::runtime::register_kernels(
      ::executorch::runtime::Span<const Kernel>(
          kernels.data(), kernels.size()));
}

/// DEPRECATED: use get_op_function_from_registry(); aborts if missing.
inline OpFunction getOpsFn(
    const char* name,
    ::executorch::runtime::ArrayRef<TensorMeta> meta_list = {}) {
  auto fn = ::executorch::runtime::get_op_function_from_registry(
      name,
      ::executorch::runtime::Span<const TensorMeta>(
          meta_list.data(), meta_list.size()));
  ET_CHECK_MSG(fn.ok(), "kernel '%s' is not registered", name);
  return *fn;
}

/// DEPRECATED: use registry_has_op_function().
inline bool hasOpsFn(
    const char* name,
    ::executorch::runtime::ArrayRef<TensorMeta> meta_list = {}) {
  return ::executorch::runtime::registry_has_op_function(
      name,
      ::executorch::runtime::Span<const TensorMeta>(
          meta_list.data(), meta_list.size()));
}

/// DEPRECATED: use get_registered_kernels().
inline ::executorch::runtime::ArrayRef<Kernel> get_kernels() {
  auto kernels = ::executorch::runtime::get_registered_kernels();
  return ::executorch::runtime::ArrayRef<Kernel>(
      kernels.data(), kernels.size());
}
}  // namespace executor
}  // namespace torch
