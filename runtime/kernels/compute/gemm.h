// Single-precision GEMM for the CPU kernel library (not installed). sgemm,
// sgemm_workspace_size and the sgemm_prepack* trio (marked ET_API) are the compute interface that libexecutorch_kernels.so.1
// exports for the backends (runtime/kernels/kernels.map, abi/kernels_exports.txt); everything
// else here stays private.
//
//   C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C[m,n]
//
// All matrices are row-major with explicit leading dimensions (the distance in elements between
// consecutive rows as stored). op(X) = X, or X^T when the Trans flag says so; a transposed
// operand is stored with the shape of X^T, e.g. linear's weight W[n,k] is passed as
// B = W, Trans::kYes, ldb = k.
//
// Semantics the callers (mm, bmm, addmm, linear, convolution) rely on:
//  - beta == 0 never reads C (it may hold NaN or garbage from an arena);
//  - k == 0 or alpha == 0 never reads A or B, and gives C = beta * C;
//  - m == 0 or n == 0 does nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "isa.h"

#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace kernels {
namespace compute {

enum class Trans : unsigned char { kNo = 0, kYes = 1 };

// Bytes of scratch that sgemm needs for these sizes at any ISA level (so a size queried before
// an ISA override is still enough afterwards). Bounded by the cache blocking: it stops growing
// once m, n and k pass the block sizes (about 4.3 MiB at most: a 256 x 4096 B block).
ET_API size_t sgemm_workspace_size(int64_t m, int64_t n, int64_t k);

// workspace: at least sgemm_workspace_size(m, n, k) bytes, any alignment; or nullptr (or too
// small), in which case a per-thread buffer is used that grows once and is then reused, so the
// hot path does not allocate after the first call of a given size. A product large enough to
// be split across the thread pool (executorch/extension/threadpool/threadpool.h) packs into
// each participating thread's own buffer instead; the result is the same bits either way.
ET_API void sgemm(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                  const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                  int64_t ldc, void* workspace = nullptr, size_t workspace_bytes = 0);

// The same with an explicit ISA level (clamped to detected_isa()); for tests and benchmarks.
void sgemm_isa(Isa isa, Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
               int64_t ldc, void* workspace = nullptr, size_t workspace_bytes = 0);

// ---- B packed ahead of time (a constant weight, packed once when a Method is loaded).
//
// sgemm packs B into the micro-kernel's panel layout on every call that takes its tiled path.
// For a B that never changes, sgemm_pack_b writes exactly those bytes once (for one ISA
// level), and sgemm_with_packed_b uses them instead: the same arithmetic in the same order,
// so the result is bit-identical to sgemm's.

// Whether sgemm at `isa` would pack B for these operands (its tiled path): only then is a
// packed B of any use.
bool sgemm_packs_b(Isa isa, Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k);

// Bytes of a packed B (header included) for a k x n op(B) at `isa`.
size_t sgemm_packed_b_size(Isa isa, int64_t k, int64_t n);

// Packs op(B) (k x n, stored as for sgemm) for `isa` into dst (sgemm_packed_b_size bytes,
// 64-byte aligned).
void sgemm_pack_b(Isa isa, Trans trans_b, int64_t k, int64_t n, const float* b, int64_t ldb,
                  void* dst);

// sgemm, taking B from `packed_b` when it was packed for these very operands (same
// trans_b, k, n and ldb) at active_isa(); otherwise (or packed_b null) exactly sgemm.
void sgemm_with_packed_b(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                         const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                         float* c, int64_t ldc, const void* packed_b);

// C = op(A) op(B) + col_bias[j] in every row (addmm's and linear's bias, n floats), B taken
// from `packed_b` as above: bit-identical to filling each row of C with col_bias and calling
// sgemm_with_packed_b with alpha 1 and beta 1. A kernel that reads a row-major A in place adds
// the bias while a tile is still in registers, which saves that pass over C and reading it back.
void sgemm_with_packed_b_col_bias(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k,
                                  const float* a, int64_t lda, const float* b, int64_t ldb,
                                  const float* col_bias, float* c, int64_t ldc,
                                  const void* packed_b);

// The same for the backends (exported), at active_isa(): the size of a packed B, packing it,
// and sgemm taking B from it, with sgemm's workspace. A packed B made at another ISA level (or
// for other operands) is ignored: the product is then exactly sgemm's.
ET_API size_t sgemm_prepacked_b_size(int64_t k, int64_t n);
// dst: sgemm_prepacked_b_size(k, n) bytes, 64-byte aligned.
ET_API void sgemm_prepack_b(Trans trans_b, int64_t k, int64_t n, const float* b, int64_t ldb,
                            void* dst);
ET_API void sgemm_prepacked_b(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k,
                              float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                              float beta, float* c, int64_t ldc, const void* packed_b,
                              void* workspace = nullptr, size_t workspace_bytes = 0);

// ---- A packed ahead of time (a constant weight on the left: the convolution's W * col).
//
// The same scheme for op(A) = A (Trans::kNo) and alpha 1: sgemm packs every A block on every
// call of its tiled path (once per column block), which for a wide but short product (a
// convolution over a small image) costs as much as the arithmetic.

// A bias per row of C and a clamp applied to the product, as a separate pass over C would:
// C = clamp(op(A) op(B) + row_bias[i], lo, hi), NaN kept (the convolution's bias and fused
// activation). With sgemm_fuses_epilogue(), the micro-kernel applies it to each tile before
// storing it, which saves that pass over C; otherwise the driver does it tile by tile.
struct SgemmEpilogue {
  const float* row_bias;  // m entries, or null for none
  float lo, hi;
};

// B supplied block by block, already in the micro-kernel's panel layout, by the caller: the
// convolution writes its im2col straight into the panels, with no column buffer in between.
// pack(ctx, p0, kc, j0, nc, nr, dst) writes rows [p0, p0 + kc) and columns [j0, j0 + nc) of B
// as nr-wide panels, panel q at dst + q * kc * nr holding kc steps of nr floats (columns
// j0 + q * nr ...), the columns past nc zero. It may be called from several threads at once,
// each with its own dst.
struct SgemmBPacker {
  void (*pack)(const void* ctx, int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t nr,
               float* dst);
  const void* ctx;
};

// Whether sgemm_with_packed_a would take its tiled path for an m x n x k product (the only one
// that packs B): only then can it take B from an SgemmBPacker.
bool sgemm_packed_a_tiles(int64_t m, int64_t n, int64_t k);

// Columns of the register tile that sgemm_with_packed_a picks at active_isa() for an m x n x k
// product on its tiled path (when its A is not packed for another tile).
int64_t sgemm_packed_a_tile_cols(int64_t m, int64_t n, int64_t k);

// For an m x n x k product with A packed ahead of time: the columns
// best given to the register tiles. n, or n less a remainder of at most kSgemmDotColumns columns
// that would fill a tile mostly with padding (a 7x7 image: 49 = 48 + 1); the caller runs the
// remaining columns as a product of their own, which sgemm_with_packed_a then runs as dot
// products. Pack A for (m, the columns returned).
constexpr int64_t kSgemmDotColumns = 4;
int64_t sgemm_packed_a_tile_columns(int64_t m, int64_t n, int64_t k);

// Whether the micro-kernel at active_isa() applies an SgemmEpilogue itself.
bool sgemm_fuses_epilogue();

// Bytes of a packed A (header included) for an m x k A at `isa`, to be multiplied by B's of
// about n columns (n picks the register tile where a level has several; 0: the main one).
size_t sgemm_packed_a_size(Isa isa, int64_t m, int64_t k, int64_t n = 0);

// Packs A (m x k, row-major, leading dimension lda) for `isa` and n (as above) into dst
// (sgemm_packed_a_size bytes, 64-byte aligned).
void sgemm_pack_a(Isa isa, int64_t m, int64_t k, const float* a, int64_t lda, void* dst,
                  int64_t n = 0);

// sgemm(Trans::kNo, Trans::kNo, m, n, k, 1, a, lda, b, ldb, 0, c, ldc, workspace, ...), taking
// A from `packed_a` when it was packed for these very operands (m, k, lda) at active_isa();
// otherwise (or packed_a null) exactly sgemm. Bit-identical to sgemm either way. epi: an
// epilogue applied to C (above), or null.
void sgemm_with_packed_a(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                         const float* b, int64_t ldb, float* c, int64_t ldc, const void* packed_a,
                         void* workspace = nullptr, size_t workspace_bytes = 0,
                         const SgemmEpilogue* epi = nullptr);

// sgemm_with_packed_a with B from `b` (see SgemmBPacker), always on the tiled path: for a product
// that sgemm_packed_a_tiles() accepts, bit-identical to sgemm_with_packed_a on the B that the
// packer describes.
void sgemm_with_packed_a_b_packer(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                  const SgemmBPacker& b, float* c, int64_t ldc,
                                  const void* packed_a, void* workspace = nullptr,
                                  size_t workspace_bytes = 0, const SgemmEpilogue* epi = nullptr);

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
