/*
 * The lengths of .bpte buffers, by start address (private header).
 *
 * Upstream's load_bundled_input() and verify_method_outputs() take the file
 * without its length, and a file cannot be verified without one. Upstream
 * callers always hand the same buffer to get_program_data() with its length
 * first; it records the length here, and the length-less functions look it
 * up and verify the file again with it.
 */
#pragma once

#include <cstddef>

namespace executorch {
namespace bundled_program {
namespace detail {

/// Records (or updates) the length of the buffer starting at `data`.
void remember_bundle_length(const void* data, size_t size);

/// The length recorded for `data`; false if none is.
bool known_bundle_length(const void* data, size_t* size);

}  // namespace detail
}  // namespace bundled_program
}  // namespace executorch
