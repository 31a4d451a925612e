// Internal contract between the qd8 x qb4w dispatch (qd8_qb4w.cpp) and its per-ISA variants
// (qd8_qb4w_<isa>.cpp, each compiled with its own flags).
//
// Packed weights: panels of kQb4wPanel columns (the last one padded with zero weights). A panel
// is 64-byte aligned and holds
//   float t[16]                     the zero-point term of each column (qd8_qb4w.h)
//   then per block:
//     float s[16]                   the block's scale of each column
//     block / 8 groups of 64 bytes  8 consecutive k of the block: byte 4 * j + i holds column
//                                   j's weight for k0 + i (i < 4) in its low nibble and for
//                                   k0 + 4 + i in its high nibble, as 4-bit two's complement
// which is what one 512-bit VNNI step takes per nibble half (16 columns x 4 k).
#pragma once

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace kernels {
namespace compute {

constexpr int64_t kQb4wPanel = 16;

inline size_t qb4w_panel_bytes(int64_t k, int64_t block) {
  const int64_t blocks = k / block;
  return static_cast<size_t>(64 * (1 + blocks * (1 + block / 8)));
}

struct Qd8Qb4wKernel {
  // All of qd8_qb4w_gemm for shapes already checked (m, n, k > 0, the packed layout above).
  void (*run)(int64_t m, int64_t n, int64_t k, int64_t block, const uint8_t* u, int64_t ldu,
              const int32_t* zero_point, const float* scale, const uint8_t* packed,
              const float* bias, float lo, float hi, float* y, int64_t ldy);
  // qd8_quantize_row.
  void (*quantize_row)(int64_t k, const float* x, uint8_t* u, int32_t* zero_point, float* scale);
  const char* name;
};

extern const Qd8Qb4wKernel kQd8Qb4wBaseline;
// x86-64 builds only: AVX2, and AVX512-VNNI (chosen at the AVX-512 level when the CPU also
// has VNNI).
extern const Qd8Qb4wKernel kQd8Qb4wAvx2;
extern const Qd8Qb4wKernel kQd8Qb4wAvx512Vnni;

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
