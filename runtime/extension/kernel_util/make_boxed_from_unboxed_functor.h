/*
 * Registering a plain ("unboxed") C++ kernel function as a boxed kernel.
 *
 *   Tensor& my_op_out(KernelRuntimeContext& ctx, const Tensor& in,
 *                     int64_t k, Tensor& out);
 *   EXECUTORCH_LIBRARY(my_ns, "my_op.out", my_op_out);
 *
 * registers "my_ns::my_op.out" into the process-wide registry from a static
 * initializer. The function's first parameter must be KernelRuntimeContext&;
 * the others are the operator schema's arguments in order. The boxed call
 * receives those arguments plus one trailing slot for the return value (for
 * out variants the out tensor again); the wrapper checks the count and the
 * kind of every argument and reports mismatches through ctx.fail() instead
 * of aborting, then writes the function's return value to the trailing slot.
 *
 * Parameter types: Tensor (by value, const&, or & for outputs and in-place
 * arguments), int64_t, double, bool, Scalar, ScalarType, MemoryFormat,
 * string_view, ArrayRef<int64_t|double|bool>, TensorList (ArrayRef<Tensor>),
 * ArrayRef<std::optional<Tensor>>, and std::optional<T> of the scalar, tensor
 * and list kinds (None maps to nullopt).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include <executorch/extension/kernel_util/meta_programming.h>
#include <executorch/extension/kernel_util/type_list.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer_hooks.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/profiler.h>

#ifndef ET_CONCATENATE
#define ET_CONCATENATE_IMPL(s1, s2) s1##s2
#define ET_CONCATENATE(s1, s2) ET_CONCATENATE_IMPL(s1, s2)
#endif
#ifndef ET_UID
#define ET_UID __LINE__
#endif

namespace executorch {
namespace extension {
namespace kernel_util_internal {

/* The value stored for one parameter while the arguments are converted. */
template <class Param>
using arg_storage_t = remove_cvref_t<Param>;

/* Converts one boxed argument; false (nothing aborts) on a kind mismatch. */
template <class T>
inline bool convert_arg(
    ::executorch::runtime::EValue& v, std::optional<T>& slot) {
  auto r = v.template tryTo<T>();
  if (!r.ok()) {
    return false;
  }
  slot.emplace(std::move(r.get()));
  return true;
}

/* Tensors are most arguments: read them directly rather than through a Result, whose
 * error-or-value copy GCC compiles into a narrow store followed by a wide load (a
 * store-forwarding stall per argument, a third of a small op's time). */
inline bool convert_arg(
    ::executorch::runtime::EValue& v,
    std::optional<::executorch::aten::Tensor>& slot) {
  if (!v.isTensor()) {
    return false;
  }
  slot.emplace(v.toTensor());
  return true;
}

template <class Fn, class ReturnType, class... Params>
struct boxed_caller;

/* Bit of argument i in KernelRuntimeContext::internal_read_only_args(). */
constexpr uint64_t arg_bit(size_t i) {
  return uint64_t{1} << (i < 63 ? i : 63);
}

/* The parameters a kernel may write: every non-const Tensor& (out tensors
 * and in-place arguments). */
template <class... Params, size_t... I>
constexpr uint64_t writable_args(std::index_sequence<I...>) {
  return (
      uint64_t{0} | ... |
      (std::is_same<Params, ::executorch::aten::Tensor&>::value ? arg_bit(I)
                                                                : 0));
}

/* The parameters a kernel only reads as tensors: const Tensor&, Tensor by
 * value, optional<Tensor>, and the lists of them. */
template <class P>
constexpr bool is_read_tensor_param() {
  using T = remove_cvref_t<P>;
  using ::executorch::aten::ArrayRef;
  using ::executorch::aten::Tensor;
  return (std::is_same<T, Tensor>::value && !std::is_same<P, Tensor&>::value) ||
         std::is_same<T, std::optional<Tensor>>::value ||
         std::is_same<T, ArrayRef<Tensor>>::value ||
         std::is_same<T, ArrayRef<std::optional<Tensor>>>::value;
}
template <class... Params, size_t... I>
constexpr uint64_t read_tensor_args(std::index_sequence<I...>) {
  return (
      uint64_t{0} | ... | (is_read_tensor_param<Params>() ? arg_bit(I) : 0));
}

/* The tensor object behind argument `v`, or null if it holds no tensor. */
inline const void* tensor_object(const ::executorch::runtime::EValue& v) {
  return v.isTensor()
             ? static_cast<const void*>(v.toTensor().unsafeGetTensorImpl())
             : nullptr;
}

/* True if argument `v` is the tensor object `t` or a list holding it. */
inline bool holds_tensor_object(
    const ::executorch::runtime::EValue& v, const void* t) {
  if (v.isTensorList()) {
    for (const auto& e : v.toTensorList()) {
      if (e.unsafeGetTensorImpl() == t) {
        return true;
      }
    }
    return false;
  }
  if (v.isListOptionalTensor()) {
    for (const auto& e : v.toListOptionalTensor()) {
      if (e.has_value() && e->unsafeGetTensorImpl() == t) {
        return true;
      }
    }
    return false;
  }
  return tensor_object(v) == t;
}

/* The tensor object that a kernel writes through one argument and reads
 * through another, or null. In-place use is fine (elementwise ops, a KV cache
 * updated with index_put), but resizing it would change an input's shape
 * under the kernel: a crafted program (the same value twice, or a MoveCall
 * that aliased two slots) made addmm multiply with a stale inner dimension
 * and read past its other input. */
template <uint64_t kWrites, uint64_t kReads>
const void* output_read_as_input(
    ::executorch::runtime::Span<::executorch::runtime::EValue*> stack,
    size_t n) {
  const size_t limit = n < 63 ? n : 63;
  for (size_t w = 0; w < limit; ++w) {
    const void* out =
        (kWrites & arg_bit(w)) ? tensor_object(*stack[w]) : nullptr;
    if (out == nullptr) {
      continue;
    }
    for (size_t r = 0; r < limit; ++r) {
      if ((kReads & arg_bit(r)) && holds_tensor_object(*stack[r], out)) {
        return out;
      }
    }
  }
  return nullptr;
}

/* The list parameters a kernel writes. In upstream's schemas an out variant
 * whose outputs are a list (split_copy.Tensor_out, unbind_copy.int_out, ...)
 * returns nothing, while the ops that read a list (cat, stack, index, ...)
 * return their out tensor: a void kernel's TensorList parameters are its
 * outputs. */
template <class ReturnType, class... Params, size_t... I>
constexpr uint64_t written_list_args(std::index_sequence<I...>) {
  return std::is_void<ReturnType>::value
             ? (uint64_t{0} | ... |
                (std::is_same<
                     remove_cvref_t<Params>,
                     ::executorch::aten::ArrayRef<::executorch::aten::Tensor>>::
                         value
                     ? arg_bit(I)
                     : 0))
             : 0;
}

template <class Fn, class ReturnType, class... Params>
struct boxed_caller<Fn, ReturnType, typelist<Params...>> {
  static constexpr size_t kNumArgs = sizeof...(Params);
  static constexpr uint64_t kWritable =
      writable_args<Params...>(std::index_sequence_for<Params...>{});
  /* Every argument of the boxed call the kernel may write, for load-time
   * checks (KernelWriteSet): the Tensor& parameters, the written lists and
   * the return slot, which the wrapper overwrites with the result. Only
   * meaningful when the call fits in 64 bits (kRecordable). */
  static constexpr bool kRecordable = kNumArgs < 64;
  static constexpr uint64_t kWrittenArgs =
      kWritable |
      written_list_args<ReturnType, Params...>(
          std::index_sequence_for<Params...>{}) |
      arg_bit(kNumArgs);
  static constexpr uint64_t kReadTensors =
      read_tensor_args<Params...>(std::index_sequence_for<Params...>{});

  template <size_t... I>
  static void call(
      ::executorch::runtime::KernelRuntimeContext& ctx,
      ::executorch::runtime::Span<::executorch::runtime::EValue*> stack,
      std::index_sequence<I...>) {
    const char* const op = Fn::name() != nullptr ? Fn::name() : "kernel";
    if (stack.size() != kNumArgs + 1) {
      ET_LOG(
          Error,
          "%s: expected %zu arguments (schema arguments plus the return slot), "
          "got %zu",
          op,
          kNumArgs + 1,
          stack.size());
      ctx.fail(::executorch::runtime::Error::InvalidProgram);
      return;
    }
    for (size_t i = 0; i < stack.size(); ++i) {
      if (stack[i] == nullptr) {
        ET_LOG(Error, "%s: argument %zu is missing", op, i);
        ctx.fail(::executorch::runtime::Error::InvalidProgram);
        return;
      }
    }
    // A program's constants may be mapped from the file and are shared by
    // every Method of the program: never hand one to a parameter the kernel
    // writes. (Load-time validation already refuses a constant in the places
    // an exported call puts its outputs; this covers the rest of a crafted
    // call's arguments, which only the kernel's signature tells apart.)
    if (const uint64_t clash = kWritable & ctx.internal_read_only_args()) {
      size_t i = 0;
      while (!(clash & arg_bit(i))) {
        ++i;
      }
      ET_LOG(
          Error,
          "%s: argument %zu is a constant tensor, which this kernel would "
          "write",
          op,
          i);
      ctx.fail(::executorch::runtime::Error::InvalidProgram);
      return;
    }
    if constexpr (kWritable != 0 && kReadTensors != 0) {
      ctx.internal_set_aliased_output(
          output_read_as_input<kWritable, kReadTensors>(stack, kNumArgs));
    }
    std::tuple<std::optional<arg_storage_t<Params>>...> args;
    size_t bad = kNumArgs;
    // Convert left to right; stop at the first argument of the wrong kind.
    (void)std::initializer_list<int>{
        (bad == kNumArgs && !convert_arg(*stack[I], std::get<I>(args))
             ? (bad = I, 0)
             : 0)...};
    if (bad != kNumArgs) {
      char kind[::executorch::runtime::kTagNameBufferSize];
      ::executorch::runtime::tag_to_string(stack[bad]->tag, kind, sizeof(kind));
      ET_LOG(Error, "%s: argument %zu has the wrong kind (%s)", op, bad, kind);
      ctx.fail(::executorch::runtime::Error::InvalidArgument);
      return;
    }
#ifdef ET_EVENT_TRACER_ENABLED
    ::executorch::runtime::internal::EventTracerProfileOpScope prof(
        ctx.internal_event_tracer(), op);
#endif
    if constexpr (std::is_void<ReturnType>::value) {
      (*Fn::func_ptr())(ctx, *std::get<I>(args)...);
    } else {
      decltype(auto) result = (*Fn::func_ptr())(ctx, *std::get<I>(args)...);
      if constexpr (std::is_constructible<
                        ::executorch::runtime::EValue,
                        remove_cvref_t<ReturnType>>::value) {
        *stack[kNumArgs] =
            ::executorch::runtime::EValue(remove_cvref_t<ReturnType>(result));
      } else {
        (void)result;
      }
    }
  }
};

}  // namespace kernel_util_internal

/*
 * The boxed form of the function carried by FuncType (a
 * CompileTimeFunctionPointer, see EXECUTORCH_FN): call() has the OpFunction
 * signature.
 */
template <class FuncType, class Enable = void>
struct WrapUnboxedIntoFunctor {
  static_assert(
      kernel_util_internal::is_compile_time_function_pointer<FuncType>::value,
      "Wrap the kernel with EXECUTORCH_FN(func)");
};

template <class FuncType>
struct WrapUnboxedIntoFunctor<
    FuncType,
    std::enable_if_t<kernel_util_internal::is_compile_time_function_pointer<
        FuncType>::value>> {
  using traits =
      kernel_util_internal::infer_function_traits<typename FuncType::FuncType>;
  using params = typename traits::parameter_types;
  static_assert(
      params::size >= 1, "a kernel takes KernelRuntimeContext& first");
  static_assert(
      std::is_same<
          typename kernel_util_internal::drop_first<params>::first,
          ::executorch::runtime::KernelRuntimeContext&>::value,
      "a kernel's first parameter must be KernelRuntimeContext&");
  using args_t = typename kernel_util_internal::drop_first<params>::type;
  using caller = kernel_util_internal::
      boxed_caller<FuncType, typename traits::return_type, args_t>;

  static void call(
      ::executorch::runtime::KernelRuntimeContext& ctx,
      ::executorch::runtime::Span<::executorch::runtime::EValue*> stack) {
    caller::call(ctx, stack, std::make_index_sequence<args_t::size>());
  }
};

/* A Kernel named `name` whose function is the boxed form of FuncType; the
 * arguments it writes are recorded for load-time checks (KernelWriteSet). */
template <class FuncType>
static ::executorch::runtime::Kernel make_boxed_kernel(
    const char* name, FuncType) {
  using wrapper = WrapUnboxedIntoFunctor<FuncType>;
  using caller = typename wrapper::caller;
  if constexpr (caller::kRecordable) {
    // A failure is logged; the kernel then falls back to the position rule.
    (void)::executorch::runtime::internal::record_kernel_write_set(
        wrapper::call,
        ::executorch::runtime::internal::KernelWriteSet{
            static_cast<uint32_t>(caller::kNumArgs + 1), caller::kWrittenArgs});
  }
  return ::executorch::runtime::Kernel(name, wrapper::call);
}

}  // namespace extension
}  // namespace executorch

/*
 * EXECUTORCH_LIBRARY(ns, "op.overload", func): registers func as
 * "ns::op.overload" when the library is loaded. The registration result is
 * kept in a static so it can be inspected in a debugger; failures are logged
 * by the registry.
 */
#define EXECUTORCH_LIBRARY(ns, op_name, func)                                \
  static constexpr const char ET_CONCATENATE(name_of_op_, ET_UID)[] =        \
      #ns "::" op_name;                                                      \
  [[maybe_unused]] static const ::executorch::runtime::Error ET_CONCATENATE( \
      res_##ns##_, ET_UID) =                                                 \
      ::executorch::runtime::register_kernel(                                \
          ::executorch::extension::make_boxed_kernel(                        \
              ET_CONCATENATE(name_of_op_, ET_UID),                           \
              EXECUTORCH_FN(func, ET_CONCATENATE(name_of_op_, ET_UID))))

namespace torch {
namespace executor {
using ::executorch::extension::make_boxed_kernel;
using ::executorch::extension::WrapUnboxedIntoFunctor;
}  // namespace executor
}  // namespace torch
