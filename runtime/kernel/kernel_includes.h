/*
 * The headers a kernel implementation needs: the tensor vocabulary
 * (exec_aten), the dtype utilities and ET_SWITCH_* dispatch, the tensor
 * predicates and ET_KERNEL_CHECK, EValue, the kernel context and the
 * registry. Custom-operator libraries include this and
 * <executorch/extension/kernel_util/make_boxed_from_unboxed_functor.h>.
 */
#pragma once

#include <executorch/runtime/core/evalue.h>               // IWYU pragma: export
#include <executorch/runtime/core/exec_aten/exec_aten.h>  // IWYU pragma: export
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>  // IWYU pragma: export
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>  // IWYU pragma: export
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>  // IWYU pragma: export
#include <executorch/runtime/kernel/kernel_runtime_context.h>  // IWYU pragma: export
#include <executorch/runtime/kernel/operator_registry.h>  // IWYU pragma: export
#include <executorch/runtime/platform/log.h>              // IWYU pragma: export

/*
 * ET_DEFINE_OPERATOR_NAME(var, "name") defines a compile-time operator name
 * usable where the ET_SWITCH_* macros take NAME; ET_OPERATOR_NAME_TYPE is the
 * type such a name has.
 */
#ifndef ET_DEFINE_OPERATOR_NAME
#define ET_OPERATOR_NAME_TYPE const char*
#define ET_DEFINE_OPERATOR_NAME(var, name) \
  static constexpr const char var[] = name
#endif
