/*
 * The one validation pass over a .bpte (private header). Everything the
 * bundled-program functions read from the file is checked here first, so the
 * readers after it only index into what this pass proved.
 */
#pragma once

#include <cstddef>

#include <executorch/devtools/bundled_program/bundled_program_reader.h>
#include <executorch/runtime/core/result.h>

#include <executorch_schema/bundled_program_schema_generated.h>

namespace executorch {
namespace bundled_program {
namespace detail {

/// Smallest buffer that can hold a flatbuffer root offset and identifier.
constexpr size_t kBundleHeaderSize = 8;

/// True if [data, data + size) is long enough for a header and carries the
/// bundled program identifier.
bool has_bundle_identifier(const void* data, size_t size);

/**
 * Verifies [data, data + size): identifier, flatbuffers Verifier, then every
 * method test suite, test case and value. An absent vector counts as empty.
 *
 * @retval Error::InvalidArgument null data.
 * @retval Error::NotSupported not a bundled program.
 * @retval Error::InvalidProgram malformed; the log names what and where.
 */
::executorch::runtime::Result<const bundled_program_flatbuffer::BundledProgram*>
verify_bundle(const void* data, size_t size);

/// A value verify_bundle() accepted, as a BundledValue.
BundledValue to_bundled_value(const bundled_program_flatbuffer::Value& value);

}  // namespace detail
}  // namespace bundled_program
}  // namespace executorch
