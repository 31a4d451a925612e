// Internal contract between the SGEMM driver (gemm.cpp, baseline code) and the per-ISA
// micro-kernels (gemm_<isa>.cpp, each compiled with its own -m flags).
//
// Packed layouts (written by the driver, 64-byte aligned, zero-padded to full tiles):
//   A micro-panel: kc steps of mr floats, already multiplied by alpha;
//   B micro-panel: kc steps of nr floats.
// The kernel computes one full mr x nr tile:  C = Apanel * Bpanel + beta * C, and must not read
// C when beta == 0. Partial tiles at the matrix edges go through a temporary tile in the driver,
// so kernels have no edge code at all.
//
// The descriptors are constant-initialized data: selecting one runs no code from an ISA
// translation unit; only calling `run` does, and the driver does that only after checking
// detected_isa().
#pragma once

#include <cstdint>

namespace executorch {
namespace kernels {
namespace compute {

struct SgemmUkernel {
  int mr;  // tile rows (A panel width)
  int nr;  // tile columns (B panel width, a multiple of the vector width)
  int mc;  // rows of A packed per block (multiple of mr): the A block stays in L2
  int kc;  // depth per block: one B micro-panel (kc x nr) stays in L1
  int nc;  // columns of B packed per block (multiple of nr): the B block stays in L2/L3
  void (*run)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float beta);
  // sum_{p<k} x[p] * y[p], unaligned inputs, any k >= 0: the driver's path for skinny products
  // (a few rows or columns), where a padded register tile would mostly compute zeros.
  float (*dot)(int64_t k, const float* x, const float* y);
  const char* name;
  // Optional (null: the driver applies the epilogue itself): run, then before the store
  // c = clamp(c + bias[i], lo, hi) for row i (bias null: no addition; NaN stays NaN), the sums
  // in the order of run followed by a separate pass.
  void (*run_epilogue)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                       float beta, const float* bias, float lo, float hi);
  // Optional (null: the driver packs A): run with A read where it is stored, row i of the tile
  // at a + i * lda and its kc values contiguous, as if packed with alpha 1 (the same sums in the
  // same order as run on that packed panel), for the first `rows` (1..mr) rows of the tile only
  // (C rows past them are not touched). Saves packing A, which for the short products of a
  // transformer's linears (a few hundred rows, k of a few hundred) costs a tenth of the
  // arithmetic, and the padded rows of a partial last panel (197 = 14 * 14 + 1).
  // col_bias (nr floats) or null: with it, C = product + col_bias[j] (C not read, beta
  // ignored), rounded as beta 1 over a C that holds the bias.
  void (*run_direct_a)(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                       int64_t ldc, float beta, int rows, const float* col_bias);
};

extern const SgemmUkernel kSgemmBaseline;
extern const SgemmUkernel kSgemmAvx2;
extern const SgemmUkernel kSgemmAvx512;
// The AVX-512 level's second tile, for products with few rows (gemm.cpp kernel_for_shape).
extern const SgemmUkernel kSgemmAvx512Narrow;
// AArch64 only (the x86 descriptors above exist only in x86 builds, and this one only in
// AArch64 builds: mk/kernels.mk builds one architecture's ISA objects).
extern const SgemmUkernel kSgemmNeon;

// Largest mr * nr over all kernels: the driver's edge tile lives on the stack.
constexpr int kSgemmMaxTile = 16 * 32;

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
