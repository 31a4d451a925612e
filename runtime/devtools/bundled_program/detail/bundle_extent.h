/*
 * The length of a .bpte taken from the bundle itself (private header).
 *
 * Upstream's load_bundled_input() and verify_method_outputs() take the file
 * without its length, and the file cannot be verified without one. A length
 * remembered under the buffer's address would outlive the buffer: another
 * bundle later placed at a freed buffer's address would be checked with the
 * old length. So the length-less functions ask the bundle instead, on every
 * call: bundle_extent() follows the flatbuffer's own offsets and vector
 * lengths to the end of the furthest object they reach, and verify_bundle()
 * then checks exactly that range.
 */
#pragma once

#include <cstddef>

#include <executorch/runtime/core/result.h>

namespace executorch {
namespace bundled_program {
namespace detail {

/**
 * The number of bytes the bundle at `data` spans: from its start to the end
 * of the furthest table, vtable, field, vector or string its structure
 * reaches (the byte after a string's terminator included).
 *
 * It reads only what the flatbuffers Verifier reads of the same bundle (the
 * header, vtable offsets, vtables, fields, offsets and vector lengths; no
 * element data), so on a complete bundle every read stays inside it. Nothing
 * here checks the values: verify_bundle() over the returned length does.
 *
 * @retval Error::InvalidArgument null data.
 * @retval Error::NotSupported no bundled program identifier.
 * @retval Error::InvalidProgram an offset or a length that reaches past the
 *     largest flatbuffer, or more tables than the Verifier accepts.
 */
::executorch::runtime::Result<size_t> bundle_extent(const void* data);

}  // namespace detail
}  // namespace bundled_program
}  // namespace executorch
