// Minimal .npy (NumPy array file, format versions 1-3) reader and writer for et_run.
// Little-endian, C-order arrays of the dtypes a .pte tensor can hold.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <executorch/runtime/core/exec_aten/exec_aten.h>

namespace et_run {

struct NpyArray {
  executorch::aten::ScalarType dtype = executorch::aten::ScalarType::Float;
  std::string descr;  // as written in the file, e.g. "<f4"
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // raw element bytes, C order
};

/// Reads `path`; on failure returns false and sets *error to a one-line reason.
bool read_npy(const std::string& path, NpyArray* out, std::string* error);

/// Writes a C-order array; false (with *error) when the dtype has no .npy form.
bool write_npy(
    const std::string& path,
    executorch::aten::ScalarType dtype,
    const std::vector<int64_t>& shape,
    const void* data,
    size_t nbytes,
    std::string* error);

/// The .npy descr of a dtype ("<f4", "|b1", ...), or nullptr if none exists.
const char* npy_descr(executorch::aten::ScalarType dtype);

}  // namespace et_run
