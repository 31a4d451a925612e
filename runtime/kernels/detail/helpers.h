/*
 * Umbrella header for the kernel library's shared helpers:
 *   kernel_util.h  - argument checks (ctx.fail + log naming op and argument),
 *                    resize_out, normalize_dim, dtype sets, log_name,
 *                    ETK_REGISTER_KERNEL
 *   dtype_util.h   - compute types, load/store conversion, dispatch_dtype,
 *                    Scalar promotion and conversion
 *   broadcast.h    - broadcast shapes, resize_out_to_broadcast, StridedLoop
 *   elementwise.h  - apply_unary/binary/ternary, copy_strided, copy_convert,
 *                    prepare_binary
 */
#pragma once

#include <executorch/runtime/kernels/detail/broadcast.h>
#include <executorch/runtime/kernels/detail/dtype_util.h>
#include <executorch/runtime/kernels/detail/elementwise.h>
#include <executorch/runtime/kernels/detail/kernel_util.h>
