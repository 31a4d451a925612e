/*
 * The single exit point for unrecoverable invariant violations (ET_CHECK).
 * Library code never reaches it because of bad input: input errors are
 * returned as Error values instead.
 */
#pragma once

#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {

/* Stops the program through the PAL abort hook. Never returns. */
ET_API ET_NORETURN void runtime_abort();

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::runtime_abort;
}  // namespace executor
}  // namespace torch
