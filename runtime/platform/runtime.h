/*
 * Process-level runtime setup.
 */
#pragma once

#include <executorch/runtime/platform/abort.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>

namespace executorch {
namespace runtime {

/*
 * Initializes the platform layer. Call it once before using the runtime;
 * calling it again is harmless (the PAL init hook runs only once).
 */
ET_API void runtime_init();

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::runtime_init;
}  // namespace executor
}  // namespace torch
