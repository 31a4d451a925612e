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

/**
 * Fusion of a run of kernel instructions at load, for activations that the
 * export decomposes into several operators (e.g. SiLU into sigmoid and mul,
 * hardswish into add, clamp, mul and div). `first` is given with the
 * instructions that run after it (those already prepared are left out),
 * each with its operator name and the mask of its constant tensor arguments
 * (bit k: argument k; only those hold data at load). The fuser returns a
 * kernel and sets *n_consumed (>= 1) to how many of `next` it covers, or
 * returns null. The Method fuses only when every value written by the run,
 * except the last covered instruction's output, is read inside the run
 * alone. The fused kernel is called with first's arguments (its output
 * replaced by that last output) followed by the covered instructions'
 * arguments; at execute it may read only first's inputs and the constants.
 * When that last output shares storage with an input of first, first's
 * output is kept instead: the kernel then writes first's output as first
 * does and computes the last output from it (it sees the two as different
 * arguments).
 */
struct FusionCandidate {
  const char* op_name;  // "name.overload"
  Span<EValue*> args;
  uint64_t constant_args;
};

using RunFuser = FusedKernel (*)(
    Span<EValue*> first_args,
    Span<const FusionCandidate> next,
    size_t* n_consumed);

/// Registers `fn` for runs starting with `first_op` (one per operator).
/// Errors as for register_constant_preparer().
ET_NODISCARD ET_API Error register_run_fuser(const char* first_op, RunFuser fn);

/// The run fuser registered for `first_op`, or null.
ET_API RunFuser find_run_fuser(const char* first_op);

/**
 * Folding of a second instruction into the constants of the first at load
 * (e.g. an inference batch norm into the weight and bias of the convolution
 * whose output it alone reads). Same pairing rule as for a fuser: `first`
 * writes a value only `second` reads (as its argument 0); instructions
 * already prepared in between do not count.
 *
 * The folder checks the two argument lists (only constants and shapes hold
 * data), and when it can fold, replaces constant arguments of `first` through
 * `rewrite` and returns the index in `second_args` of the output `first` is
 * to write from then on; `second` is then skipped. Any other value `second`
 * writes must be read by nobody else (the Method checks; otherwise nothing is
 * folded). It returns -1 to leave the pair alone; replacements it made are
 * then discarded. The rewritten first instruction may be folded or fused
 * again with the instruction after `second`.
 */
class ArgumentRewriter {
 public:
  /// True when argument `index` of the first instruction is a constant
  /// tensor (its data can be read at load and never changes).
  virtual bool first_is_constant(size_t index) const = 0;
  /// The same for argument `index` of the second instruction.
  virtual bool second_is_constant(size_t index) const = 0;
  /// Replaces argument `index` of the first instruction by a new contiguous
  /// constant tensor of `dtype` and `sizes`, owned by the Method and counted
  /// in its prepared bytes, and returns its data for the folder to fill
  /// (64-byte aligned); null when out of memory or the index or sizes are
  /// invalid.
  virtual void* replace_with_constant(
      size_t index,
      executorch::aten::ScalarType dtype,
      Span<const int32_t> sizes) = 0;

 protected:
  ~ArgumentRewriter() = default;
};

using InstructionFolder = int (*)(
    Span<EValue*> first_args,
    Span<EValue*> second_args,
    ArgumentRewriter& rewrite);

/// Registers `fn` for the pair (first, second), names as for kernels and
/// string literals. Errors as for register_constant_preparer().
ET_NODISCARD ET_API Error register_instruction_folder(
    const char* first_op, const char* second_op, InstructionFolder fn);

/// The folder registered for (first, second), or null.
ET_API InstructionFolder
find_instruction_folder(const char* first_op, const char* second_op);

/**
 * Layout rules: at load, the Method may switch 4-D float intermediate values
 * from contiguous (NCHW) to channels-last (NHWC) dim order, so that chains of
 * convolutions run in NHWC without layout copies. It does so only for values
 * every instruction touching them has a rule for; an operator without one
 * keeps all the tensors it touches contiguous.
 *
 * The rule sees the instruction's arguments (shapes known, data only for
 * constants) and fills layout.group[k] for each argument k, preset to
 * kLayoutContiguous:
 *   kLayoutContiguous  the argument must stay contiguous;
 *   kLayoutFree        this operator accepts it in either order (e.g. a
 *                      [N, C, 1, 1] operand, whose two orders are the same
 *                      bytes, or a non-4-D one);
 *   g >= 0             a tie group: arguments with the same g get the same
 *                      order (e.g. the operands and output of an elementwise
 *                      operator).
 * and sets bit k of layout.prefers_channels_last for arguments its kernel
 * runs faster on in channels-last (a convolution's input and output): only
 * values some instruction prefers channels-last are switched. The kernel
 * must compute the same result for every order its rule allows.
 */
constexpr int32_t kLayoutContiguous = -1;
constexpr int32_t kLayoutFree = -2;

struct ArgumentLayouts {
  int32_t* group;  // one entry per argument
  uint64_t prefers_channels_last;
};

using LayoutRule = void (*)(Span<EValue*> args, ArgumentLayouts& layout);

/// Registers `fn` for the operator `op_name` (one per operator). Errors as
/// for register_constant_preparer().
ET_NODISCARD ET_API Error
register_layout_rule(const char* op_name, LayoutRule fn);

/// The layout rule registered for `op_name`, or null.
ET_API LayoutRule find_layout_rule(const char* op_name);

/// Registers `fn` for the pair (first, second), names as for kernels and
/// string literals. Errors as for register_constant_preparer().
ET_NODISCARD ET_API Error register_instruction_fuser(
    const char* first_op, const char* second_op, InstructionFuser fn);

/// The fuser registered for (first, second), or null.
ET_API InstructionFuser
find_instruction_fuser(const char* first_op, const char* second_op);

}  // namespace runtime
}  // namespace executorch
