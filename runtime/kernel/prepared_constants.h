/*
 * Prepared constants: derived forms of a Method's constant tensors (e.g. a
 * weight packed into a GEMM micro-kernel's layout), made once when the Method
 * is loaded and reused by every execute().
 *
 * A kernel library registers a ConstantPreparer per operator name. At load,
 * for every instruction of that operator with a constant tensor argument, the
 * Method calls the preparer with the instruction's arguments (non-constant
 * inputs hold no data yet: only their shapes and the constants may be read)
 * and a cache to add blobs to. At execute, the kernel finds its blob through
 * KernelRuntimeContext::prepared_constants(), keyed by the constant's data
 * pointer and a tag the library chooses. The Method owns the blobs and frees
 * them with itself; Method::prepared_constant_bytes() counts them. A kernel
 * must compute the same result with or without its blob.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {

class KernelRuntimeContext;

class PreparedConstants {
 public:
  /// The blob stored for (key, tag), or null.
  virtual const void* find(const void* key, uint32_t tag) const = 0;
  /// Allocates `bytes` (64-byte aligned) for (key, tag) and returns it, or
  /// null when out of memory or (key, tag) already has a blob. Only while
  /// preparing.
  virtual void* add(const void* key, uint32_t tag, size_t bytes) = 0;

 protected:
  ~PreparedConstants() = default;
};

/// Called at load for one instruction; may add blobs to `cache`. Failures
/// (ctx.fail) only mean "nothing prepared": the kernel runs as usual.
using ConstantPreparer = void (*)(
    KernelRuntimeContext& ctx, Span<EValue*> args, PreparedConstants& cache);

/**
 * Registers `fn` for the operator `op_name` ("name.overload", as kernels are
 * registered). One preparer per name; the name must stay valid for the life
 * of the process (a string literal).
 *
 * @retval Error::InvalidArgument null name or function, or a name already
 *     registered.
 * @retval Error::RegistrationExceedingMaxKernels the table is full.
 */
ET_NODISCARD ET_API Error
register_constant_preparer(const char* op_name, ConstantPreparer fn);

/// The preparer registered for `op_name`, or null.
ET_API ConstantPreparer find_constant_preparer(const char* op_name);

/**
 * Fusion of two kernel instructions at load: `first` writes a value that
 * only the instruction right after it, `second`, reads (as its argument 0).
 * The fuser looks at both argument lists (as for a preparer, only constants
 * and shapes hold data) and returns a kernel that does both, or null to
 * leave them alone. The fused kernel is called with first's arguments (its
 * output replaced by second's output) followed by all of second's
 * arguments; second is then skipped. It must give what the two did.
 */
using FusedKernel =
    void (*)(KernelRuntimeContext&, Span<EValue*>);  // an OpFunction
using InstructionFuser =
    FusedKernel (*)(Span<EValue*> first_args, Span<EValue*> second_args);

/// Registers `fn` for the pair (first, second), names as for kernels and
/// string literals. Errors as for register_constant_preparer().
ET_NODISCARD ET_API Error register_instruction_fuser(
    const char* first_op, const char* second_op, InstructionFuser fn);

/// The fuser registered for (first, second), or null.
ET_API InstructionFuser
find_instruction_fuser(const char* first_op, const char* second_op);

}  // namespace runtime
}  // namespace executorch
