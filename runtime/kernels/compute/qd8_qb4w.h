// Dynamically quantized int8 activations times 4-bit blockwise weights (XNNPACK's qdint8 x
// qbint4 fully connected, what upstream's `export_llama -qmode 8da4w` lowers its linear layers
// to). Exported from libexecutorch_kernels.so.1 (the ET_API declarations,
// runtime/kernels/kernels.map) for the XNNPACK backend.
//
// The arithmetic is XNNPACK's, operation for operation, so that a program gives the same bits
// as upstream's runtime on an x86-64 CPU with AVX512-VNNI (where XNNPACK runs the unsigned
// "qdu8" flavour of its kernels). Off by one rounding, a dynamically quantized network does not
// stay close: the next layer's quantization rounds a few elements the other way, and those
// whole-step differences grow layer after layer (about 1% of the logits of an 8-layer Llama).
//
// Rows (qd8_quantize_row): a row x of k floats gets
//   rmin = min(0, min x), rmax = max(0, max x)
//   mult = rmin == rmax ? 1 : 255.f / (rmax - rmin)       (float arithmetic)
//   zero point: -128 - rmin * mult or 127 - rmax * mult (the one XNNPACK's error test picks),
//               clamped to [-128, 127] and rounded to nearest even
//   q[i] = clamp(round_half_even(x[i] * mult) + zero_point, -128, 127)
//   scale = 1.f / mult
// and is stored as u[i] = q[i] + 128 (uint8) with zero point zp + 128.
//
// Weights (qb4w_pack): w[n][k] = nibble - 8 in [-8, 7] (upstream's stored nibbles, q + 8, low
// nibble first), one bf16-exact float scale s[n][b] per block of `block` consecutive k.
//
// Product (qd8_qb4w_gemm), for row m and column n:
//   t = 0; for each run of 16 consecutive k: t = t - (float)(sum of those w) * s[n][block of k]
//   v = t * (float)zp_u[m]
//   for each block b in order: v = fma((float)(sum_{k in b} u[m][k] * w[n][k]), s[n][b], v)
//   y[m][n] = clamp(v * scale[m] + bias[n], lo, hi)                   (bias 0 when absent)
// The integer sums are exact (a block of at most 4096 elements), so every ISA level gives the
// same bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "isa.h"

#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace kernels {
namespace compute {

// The largest block qb4w_pack takes (keeps the int32 block sums exact).
constexpr int64_t kQb4wMaxBlock = 4096;

// Whether (n, k, block) can be packed: all positive, block a multiple of 8 and at most
// kQb4wMaxBlock, k a multiple of block.
ET_API bool qb4w_shape_valid(int64_t n, int64_t k, int64_t block);

// Bytes qb4w_pack writes (0 for an invalid shape).
ET_API size_t qb4w_packed_size(int64_t n, int64_t k, int64_t block);

// Packs w (`nibbles`: [n][k / 2] bytes, element k of a row in the low nibble of byte k / 2 when
// k is even, the high nibble when odd; each nibble is the weight + 8) and the block scales
// ([n][k / block] floats) into `packed` (qb4w_packed_size bytes, 64-byte aligned). False for an
// invalid shape.
ET_API bool qb4w_pack(int64_t n, int64_t k, int64_t block, const uint8_t* nibbles,
                      const float* scales, void* packed);

// Quantizes one row of k floats as described above: u (k bytes), *zero_point (zp + 128, in
// [0, 255]) and *scale.
ET_API void qd8_quantize_row(int64_t k, const float* x, uint8_t* u, int32_t* zero_point,
                             float* scale);

// y[m][n] (row stride ldy) from m quantized rows (u: row stride ldu; zero_point, scale: one per
// row) and the packed weights; bias: n floats or nullptr.
ET_API void qd8_qb4w_gemm(int64_t m, int64_t n, int64_t k, int64_t block, const uint8_t* u,
                          int64_t ldu, const int32_t* zero_point, const float* scale,
                          const void* packed, const float* bias, float lo, float hi, float* y,
                          int64_t ldy);

// The same with an explicit ISA level (clamped to detected_isa()); for tests and benchmarks.
void qd8_qb4w_gemm_isa(Isa isa, int64_t m, int64_t n, int64_t k, int64_t block, const uint8_t* u,
                       int64_t ldu, const int32_t* zero_point, const float* scale,
                       const void* packed, const float* bias, float lo, float hi, float* y,
                       int64_t ldy);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
