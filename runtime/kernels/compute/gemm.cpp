// SGEMM driver: GotoBLAS-style cache blocking around per-ISA register-blocked micro-kernels.
//
//   for jc in n by nc:            B block (kc x nc) packed once, reused by every A block
//     for pc in k by kc:
//       pack B[pc.., jc..]
//       for ic in m by mc:        A block (mc x kc) packed, alpha folded in
//         pack A[ic.., pc..]
//         for jr in nc by nr:     B micro-panel stays in L1 across the ir loop
//           for ir in mc by mr:   micro-kernel: mr x nr tile, kc deep
//
// The first pc block applies the caller's beta; later ones accumulate (beta = 1). Packing is
// done in baseline code: it is O(mk + kn) against O(mnk) compute and bound by memory anyway.
// Skinny products (a few rows or columns) skip all of this for one dot product per output.
#include "gemm.h"

#include <cstring>

#include <executorch/extension/threadpool/threadpool.h>

#include "gemm_kernels.h"
#include "parallel.h"
#include "scratch.h"
#include "vmath.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

const SgemmUkernel& kernel_for(Isa isa) {
  // Clamp again: an explicit request above what the CPU reports must never reach an ISA TU.
  int level = static_cast<int>(isa);
  int best = static_cast<int>(detected_isa());
  if (level > best)
    level = best;
  switch (static_cast<Isa>(level)) {
#if defined(__aarch64__)
    case Isa::kNeonDot:  // the float kernels have no use for the dot-product instructions
    case Isa::kNeon:
      return kSgemmNeon;
#elif defined(__x86_64__)
    case Isa::kAvx512:
      return kSgemmAvx512;
    case Isa::kAvx2:
      return kSgemmAvx2;
#else
    default:  // no ISA variants are built for this architecture
#endif
    case Isa::kBaseline:
      break;
  }
  return kSgemmBaseline;
}

// Every kernel this build can pick, so the workspace size holds at any ISA level.
#if defined(__aarch64__)
constexpr const SgemmUkernel* kAllKernels[] = {&kSgemmBaseline, &kSgemmNeon};
#elif defined(__x86_64__)
constexpr const SgemmUkernel* kAllKernels[] = {&kSgemmBaseline, &kSgemmAvx2, &kSgemmAvx512};
#else
constexpr const SgemmUkernel* kAllKernels[] = {&kSgemmBaseline};
#endif

inline int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}
inline int64_t round_up(int64_t v, int64_t m) {
  return (v + m - 1) / m * m;
}

// Floats of packed A and packed B needed by one kernel for these sizes.
void packed_sizes(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, int64_t* a_floats,
                  int64_t* b_floats) {
  int64_t kc = min64(k, kern.kc);
  *a_floats = round_up(min64(m, kern.mc), kern.mr) * kc;
  *b_floats = round_up(min64(n, kern.nc), kern.nr) * kc;
}

size_t workspace_for(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k) {
  int64_t af, bf;
  packed_sizes(kern, m, n, k, &af, &bf);
  // Two aligned regions plus slack to align the caller's pointer.
  return round_up_bytes(static_cast<size_t>(af) * sizeof(float), kScratchAlign) +
         round_up_bytes(static_cast<size_t>(bf) * sizeof(float), kScratchAlign) + kScratchAlign;
}

// Packs op(A)[i0:i0+mc, p0:p0+kc] into mr-wide micro-panels, scaled by alpha, zero-padded.
// op(A)(i, p) = a[i * rs + p * cs].
void pack_a(const float* a, int64_t rs, int64_t cs, int64_t mc, int64_t kc, int mr, float alpha,
            float* dst) {
  for (int64_t i0 = 0; i0 < mc; i0 += mr) {
    int64_t rows = min64(mr, mc - i0);
    float* panel = dst + i0 * kc;
    if (cs == 1) {
      // Row-major A: read each row contiguously, write with stride mr.
      for (int64_t ii = 0; ii < rows; ++ii) {
        const float* src = a + (i0 + ii) * rs;
        for (int64_t p = 0; p < kc; ++p)
          panel[p * mr + ii] = alpha * src[p];
      }
    } else {
      // Transposed A (stored k x m): each k step is contiguous across the panel's rows.
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = a + p * cs + i0 * rs;
        for (int64_t ii = 0; ii < rows; ++ii)
          panel[p * mr + ii] = alpha * src[ii * rs];
      }
    }
    if (rows < mr) {
      for (int64_t p = 0; p < kc; ++p)
        for (int64_t ii = rows; ii < mr; ++ii)
          panel[p * mr + ii] = 0.0f;
    }
  }
}

// Packs op(B)[p0:p0+kc, j0:j0+nc] into nr-wide micro-panels, zero-padded.
// op(B)(p, j) = b[p * rs + j * cs].
void pack_b(const float* b, int64_t rs, int64_t cs, int64_t kc, int64_t nc, int nr, float* dst) {
  for (int64_t j0 = 0; j0 < nc; j0 += nr) {
    int64_t cols = min64(nr, nc - j0);
    float* panel = dst + j0 * kc;
    if (cs == 1) {
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = b + p * rs + j0;
        float* d = panel + p * nr;
        std::memcpy(d, src, static_cast<size_t>(cols) * sizeof(float));
        for (int64_t jj = cols; jj < nr; ++jj)
          d[jj] = 0.0f;
      }
    } else {
      // Transposed B (stored n x k, e.g. a linear weight): read along k contiguously.
      for (int64_t jj = 0; jj < cols; ++jj) {
        const float* src = b + (j0 + jj) * cs;
        for (int64_t p = 0; p < kc; ++p)
          panel[p * nr + jj] = src[p * rs];
      }
      if (cols < nr) {
        for (int64_t p = 0; p < kc; ++p)
          for (int64_t jj = cols; jj < nr; ++jj)
            panel[p * nr + jj] = 0.0f;
      }
    }
  }
}

// C = beta * C over an m x n region (k == 0 or alpha == 0: A and B are not read).
void scale_c(int64_t m, int64_t n, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    if (beta == 0.0f) {
      for (int64_t j = 0; j < n; ++j)
        row[j] = 0.0f;
    } else if (beta != 1.0f) {
      for (int64_t j = 0; j < n; ++j)
        row[j] *= beta;
    }
  }
}

// Used only if scratch memory cannot be had: correct, unblocked, slow.
void sgemm_unpacked(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t ars,
                    int64_t acs, const float* b, int64_t brs, int64_t bcs, float beta, float* c,
                    int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int64_t p = 0; p < k; ++p)
        s += a[i * ars + p * acs] * b[p * brs + j * bcs];
      float* cij = c + i * ldc + j;
      *cij = alpha * s + (beta == 0.0f ? 0.0f : beta * *cij);
    }
  }
}

// Whether the product is skinny enough that one dot product per output, on A's rows as stored,
// beats the tiled path. A rough cycle model (it only has to order the two): the tiled path
// packs A and B (about a cycle per float) and runs every padded tile (mr cycles per k step:
// 2*mr vector FMAs at two per cycle); a dot costs k / (lanes) plus a reduction, and a B column
// that is not contiguous is gathered first. The zoo's late ResNet convolutions (64 x 1 outputs,
// k = 576) and one-row linears (1 x 10) are the products this is for.
bool dots_pay(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, bool b_cols_contiguous) {
  const int64_t lanes = kern.nr / 2;  // every kernel's tile is two vectors wide
  const int64_t tiles = ((m + kern.mr - 1) / kern.mr) * ((n + kern.nr - 1) / kern.nr);
  const int64_t tiled = tiles * k * kern.mr + (round_up(m, kern.mr) + round_up(n, kern.nr)) * k;
  const int64_t dots = m * n * (16 + k / lanes) + (b_cols_contiguous ? 0 : n * k);
  return dots < tiled;
}

// C = alpha * A B + beta * C as m * n dot products. A's rows must be contiguous (acs == 1); a
// B column that is not (brs != 1) is gathered into a stack buffer, kChunk floats at a time.
// Kept out of line: inlined, its buffer and loops changed run()'s frame and cost the tiled
// path of small products a few percent.
__attribute__((noinline)) void run_dots(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k,
                                        float alpha, const float* a, int64_t ars, const float* b,
                                        int64_t brs, int64_t bcs, float beta, float* c,
                                        int64_t ldc) {
  constexpr int64_t kChunk = 512;
  alignas(64) float column[kChunk];
  for (int64_t j = 0; j < n; ++j) {
    const float* bj = b + j * bcs;
    const int64_t step = brs == 1 ? k : kChunk;
    for (int64_t p0 = 0; p0 < k; p0 += step) {
      const int64_t len = min64(step, k - p0);
      const float* y = bj + p0;
      if (brs != 1) {
        for (int64_t p = 0; p < len; ++p)
          column[p] = bj[(p0 + p) * brs];
        y = column;
      }
      for (int64_t i = 0; i < m; ++i) {
        float* cij = c + i * ldc + j;
        const float v = alpha * kern.dot(len, a + i * ars + p0, y);
        // The first chunk applies beta (and never reads C when beta is 0); later ones add.
        *cij = p0 > 0 ? *cij + v : (beta == 0.0f ? v : v + beta * *cij);
      }
    }
  }
}

// A few rows of A times a row-major B (bcs == 1): each C row is built from k axpys over B's
// rows, so B streams through once per row, contiguously, and nothing is packed. This is the
// one-row linear / addmm whose weight was transposed ahead of time (k x n, row-major), where
// one dot product per output would gather every B column with a stride of n.
constexpr int64_t kAxpyMaxRows = 4;

void run_axpys(const VmathKernels& vm, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t ars, int64_t acs, const float* b, int64_t brs, float beta, float* c,
               int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    scale_c(1, n, beta, row, ldc);
    for (int64_t p = 0; p < k; ++p)
      vm.axpy(n, alpha * a[i * ars + p * acs], b + p * brs, row);
  }
}

enum class Path { kAxpys, kDots, kTiled };

// The one place that picks how a product runs (sgemm_packs_b must agree with run()).
Path choose_path(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, int64_t acs,
                 int64_t brs, int64_t bcs) {
  if (bcs == 1 && m <= kAxpyMaxRows)
    return Path::kAxpys;
  if (acs == 1 && dots_pay(kern, m, n, k, brs == 1))
    return Path::kDots;
  return Path::kTiled;
}

// What a packed B (or A) starts with; the panels follow at kPackedHeaderBytes. `other` is n for
// a B, m for an A.
struct PackedHeader {
  int32_t isa;
  int32_t trans;
  int64_t k, other, ld;
};
constexpr size_t kPackedHeaderBytes = 64;
static_assert(sizeof(PackedHeader) <= kPackedHeaderBytes, "header fits its slot");

// An A packed ahead of time (sgemm_pack_a): for each kc block of k in order, the mr-row panels
// of all round_up(m, mr) rows, kc_block x mr floats each. A product over rows [row0, ...) of
// that A (a rectangle of a split product) finds the panel of its row i of block pc at
// panels + m_round * pc + (row0 + i) * kc_block.
struct PackedA {
  const float* panels;
  int64_t m_round;
  int64_t row0;
};

void run_tiled(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs, int64_t bcs,
               float beta, float* c, int64_t ldc, void* workspace, size_t workspace_bytes,
               const float* prepacked_b, const PackedA* prepacked_a, const SgemmEpilogue* epi);
bool run_axpys_parallel(const VmathKernels& vm, int64_t m, int64_t n, int64_t k, float alpha,
                        const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
                        float beta, float* c, int64_t ldc);
bool run_dots_parallel(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, float alpha,
                       const float* a, int64_t ars, const float* b, int64_t brs, int64_t bcs,
                       float beta, float* c, int64_t ldc);
bool run_tiled_parallel(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, float alpha,
                        const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
                        int64_t bcs, float beta, float* c, int64_t ldc, const float* prepacked_b,
                        const PackedA* prepacked_a, const SgemmEpilogue* epi);

// The epilogue in place over an m x n block of C whose first row is row `row0` of the
// product: what the micro-kernels' run_epilogue does, for edge tiles and the other paths.
void apply_epilogue(const SgemmEpilogue* epi, int64_t row0, float* c, int64_t ldc, int64_t m,
                    int64_t n) {
  if (epi == nullptr)
    return;
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    if (epi->row_bias != nullptr) {
      const float b = epi->row_bias[row0 + i];
      for (int64_t j = 0; j < n; ++j)
        row[j] += b;
    }
    for (int64_t j = 0; j < n; ++j) {
      const float v = row[j] < epi->lo ? epi->lo : row[j];  // NaN stays NaN
      row[j] = v > epi->hi ? epi->hi : v;
    }
  }
}

// An edge tile (rows x cols of C at cp) with the epilogue, through the micro-kernel's own
// epilogue on the full stack tile so the sums are those of a full tile: C's valid part (when
// accumulating, beta_blk = 1) goes into the tile first and the result back out; the tile rows
// past `rows` get bias 0.
void edge_tile_epilogue(const SgemmUkernel& kern, int64_t kc, const float* ap, const float* bp,
                        float* tile, float* cp, int64_t ldc, int64_t rows, int64_t cols,
                        float beta_blk, const SgemmEpilogue& epi, int64_t row0) {
  const int nr = kern.nr;
  float bias[kSgemmMaxTile / 8] = {};  // mr entries (every kernel's nr is at least 8)
  for (int64_t ii = 0; ii < rows && epi.row_bias != nullptr; ++ii)
    bias[ii] = epi.row_bias[row0 + ii];
  if (beta_blk != 0.0f) {
    for (int64_t ii = 0; ii < rows; ++ii)
      std::memcpy(tile + ii * nr, cp + ii * ldc, static_cast<size_t>(cols) * sizeof(float));
  }
  kern.run_epilogue(kc, ap, bp, tile, nr, beta_blk, epi.row_bias != nullptr ? bias : nullptr,
                    epi.lo, epi.hi);
  for (int64_t ii = 0; ii < rows; ++ii)
    std::memcpy(cp + ii * ldc, tile + ii * nr, static_cast<size_t>(cols) * sizeof(float));
}

// Row `row0` of the product's epilogue: the same clamp, the bias from that row on.
SgemmEpilogue epilogue_from(const SgemmEpilogue& epi, int64_t row0) {
  SgemmEpilogue e = epi;
  if (e.row_bias != nullptr)
    e.row_bias += row0;
  return e;
}

// prepacked_b: every B block of the tiled path as pack_b writes it, jc blocks in order, each
// holding its pc blocks in order (see sgemm_pack_b); or null to pack on the fly.
void run(const SgemmUkernel& kern, const VmathKernels& vm, Trans ta, Trans tb, int64_t m, int64_t n,
         int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
         float beta, float* c, int64_t ldc, void* workspace, size_t workspace_bytes,
         const float* prepacked_b = nullptr, const PackedA* prepacked_a = nullptr,
         const SgemmEpilogue* epi = nullptr) {
  if (m <= 0 || n <= 0)
    return;
  if (k <= 0 || alpha == 0.0f) {
    scale_c(m, n, beta, c, ldc);
    apply_epilogue(epi, 0, c, ldc, m, n);
    return;
  }
  // Strides of op(A) and op(B) as (row, column) element steps.
  const int64_t ars = ta == Trans::kNo ? lda : 1;
  const int64_t acs = ta == Trans::kNo ? 1 : lda;
  const int64_t brs = tb == Trans::kNo ? ldb : 1;
  const int64_t bcs = tb == Trans::kNo ? 1 : ldb;
  // The path is chosen here, for the whole product, before any split across threads: the
  // paths round differently, so a split must never change which one runs.
  switch (choose_path(kern, m, n, k, acs, brs, bcs)) {
    case Path::kAxpys:
      // At most kAxpyMaxRows rows (a linear layer at batch 1): split the columns when the
      // product is large enough.
      if (!run_axpys_parallel(vm, m, n, k, alpha, a, ars, acs, b, brs, beta, c, ldc))
        run_axpys(vm, m, n, k, alpha, a, ars, acs, b, brs, beta, c, ldc);
      apply_epilogue(epi, 0, c, ldc, m, n);
      return;
    case Path::kDots:
      if (!run_dots_parallel(kern, m, n, k, alpha, a, ars, b, brs, bcs, beta, c, ldc))
        run_dots(kern, m, n, k, alpha, a, ars, b, brs, bcs, beta, c, ldc);
      apply_epilogue(epi, 0, c, ldc, m, n);
      return;
    case Path::kTiled:
      break;
  }
  if (run_tiled_parallel(kern, m, n, k, alpha, a, ars, acs, b, brs, bcs, beta, c, ldc, prepacked_b,
                         prepacked_a, epi))
    return;
  run_tiled(kern, m, n, k, alpha, a, ars, acs, b, brs, bcs, beta, c, ldc, workspace,
            workspace_bytes, prepacked_b, prepacked_a, epi);
}

// The blocked loops of the header comment over the whole m x n product (or, from
// run_tiled_parallel, over one rectangle of it).
void run_tiled(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs, int64_t bcs,
               float beta, float* c, int64_t ldc, void* workspace, size_t workspace_bytes,
               const float* prepacked_b, const PackedA* prepacked_a, const SgemmEpilogue* epi) {
  int64_t a_floats, b_floats;
  packed_sizes(kern, m, n, k, &a_floats, &b_floats);
  size_t need = workspace_for(kern, m, n, k);
  void* ws = workspace;
  if (ws == nullptr || workspace_bytes < need) {
    ws = thread_scratch(ScratchSlot::kGemm, need);
    if (ws == nullptr) {
      sgemm_unpacked(m, n, k, alpha, a, ars, acs, b, brs, bcs, beta, c, ldc);
      apply_epilogue(epi, 0, c, ldc, m, n);
      return;
    }
  }
  float* packed_a = static_cast<float*>(align_up(ws));
  float* packed_b = static_cast<float*>(align_up(packed_a + a_floats));

  const int mr = kern.mr, nr = kern.nr;
  alignas(64) float tile[kSgemmMaxTile];

  const float* jc_packed = prepacked_b;  // this jc block's packed panels (prepacked only)
  for (int64_t jc = 0; jc < n;
       jc_packed += prepacked_b != nullptr ? round_up(min64(kern.nc, n - jc), kern.nr) * k : 0,
               jc += kern.nc) {
    const int64_t nc = min64(kern.nc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kern.kc) {
      const int64_t kc = min64(kern.kc, k - pc);
      const float beta_blk = pc == 0 ? beta : 1.0f;
      // The epilogue goes with each tile's last k block, while the tile is in registers.
      const SgemmEpilogue* tile_epi = pc + kc == k ? epi : nullptr;
      const float* b_block = packed_b;
      if (prepacked_b != nullptr) {
        b_block = jc_packed + round_up(nc, nr) * pc;
      } else {
        pack_b(b + pc * brs + jc * bcs, brs, bcs, kc, nc, nr, packed_b);
      }
      for (int64_t ic = 0; ic < m; ic += kern.mc) {
        const int64_t mc = min64(kern.mc, m - ic);
        const float* a_block = packed_a;
        if (prepacked_a != nullptr) {
          a_block = prepacked_a->panels + prepacked_a->m_round * pc + (prepacked_a->row0 + ic) * kc;
        } else {
          pack_a(a + ic * ars + pc * acs, ars, acs, mc, kc, mr, alpha, packed_a);
        }
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int64_t cols = min64(nr, nc - jr);
          const float* bp = b_block + jr * kc;
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const int64_t rows = min64(mr, mc - ir);
            const float* ap = a_block + ir * kc;
            float* cp = c + (ic + ir) * ldc + (jc + jr);
            if (rows == mr && cols == nr) {
              if (tile_epi != nullptr && kern.run_epilogue != nullptr) {
                const float* rb = tile_epi->row_bias;
                kern.run_epilogue(kc, ap, bp, cp, ldc, beta_blk, rb != nullptr ? rb + ic + ir : rb,
                                  tile_epi->lo, tile_epi->hi);
                continue;
              }
              kern.run(kc, ap, bp, cp, ldc, beta_blk);
              apply_epilogue(tile_epi, ic + ir, cp, ldc, rows, cols);
              continue;
            }
            if (tile_epi != nullptr && kern.run_epilogue != nullptr) {
              edge_tile_epilogue(kern, kc, ap, bp, tile, cp, ldc, rows, cols, beta_blk, *tile_epi,
                                 ic + ir);
              continue;
            }
            // Edge tile: full-size product into the stack tile, then merge the valid part.
            kern.run(kc, ap, bp, tile, nr, 0.0f);
            for (int64_t ii = 0; ii < rows; ++ii) {
              float* crow = cp + ii * ldc;
              const float* trow = tile + ii * nr;
              if (beta_blk == 0.0f) {
                for (int64_t jj = 0; jj < cols; ++jj)
                  crow[jj] = trow[jj];
              } else if (beta_blk == 1.0f) {
                for (int64_t jj = 0; jj < cols; ++jj)
                  crow[jj] += trow[jj];
              } else {
                for (int64_t jj = 0; jj < cols; ++jj)
                  crow[jj] = trow[jj] + beta_blk * crow[jj];
              }
            }
            apply_epilogue(tile_epi, ic + ir, cp, ldc, rows, cols);
          }
        }
      }
    }
  }
}

// --- One product across the thread pool ---
// Only the output is split, into rectangles; k never is. Every element of C is computed by the
// same kc blocks in the same order (tiles), or by the same chunked dot (dots), whichever
// thread runs it, so the result is bit-identical at any thread count. Rectangle edges fall on
// multiples of mr and nr, so the tile grid (and which tiles are partial edge tiles, merged
// through the stack tile) is the one the unsplit loops use. Each task packs its own A and B
// into its own thread's scratch.

// Products below this many multiply-adds stay on the calling thread: waking a worker costs
// some tens of microseconds, about what a million multiply-adds take on one core.
double parallel_min_macs() {
  return 8 * min_parallel_work();
}

// Threads worth using: 1 for a small product, a 1-thread pool, or a call from inside a
// parallel region (which would run inline anyway).
int64_t threads_for(int64_t m, int64_t n, int64_t k) {
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <
          parallel_min_macs() ||
      extension::threadpool::in_parallel_region()) {
    return 1;
  }
  return static_cast<int64_t>(extension::threadpool::get_threadpool()->get_thread_count());
}

// Column blocks of the axpys path: every output element still gets alpha * a[i, p] * b[p, j]
// added for p in order. Blocks start at multiples of 64 columns (a multiple of every unroll
// width of axpy), so each column goes through the same part of axpy's loop (unrolled body,
// single vectors or scalar tail) as in the unsplit row: the split is exact.
bool run_axpys_parallel(const VmathKernels& vm, int64_t m, int64_t n, int64_t k, float alpha,
                        const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
                        float beta, float* c, int64_t ldc) {
  constexpr int64_t kBlock = 64;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  if (blocks < 2 || threads_for(m, n, k) <= 1)
    return false;
  return parallel_items(blocks, static_cast<double>(m) * k * kBlock, [&](int64_t j0, int64_t j1) {
    const int64_t c0 = j0 * kBlock, c1 = j1 * kBlock < n ? j1 * kBlock : n;
    run_axpys(vm, m, c1 - c0, k, alpha, a, ars, acs, b + c0, brs, beta, c + c0, ldc);
  });
}

bool run_dots_parallel(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, float alpha,
                       const float* a, int64_t ars, const float* b, int64_t brs, int64_t bcs,
                       float beta, float* c, int64_t ldc) {
  if (threads_for(m, n, k) <= 1)
    return false;
  // Split the columns when there are several (each chunk gathers its own B columns), else the
  // rows.
  if (n >= 2) {
    return parallel_items(n, static_cast<double>(m) * k, [&](int64_t j0, int64_t j1) {
      run_dots(kern, m, j1 - j0, k, alpha, a, ars, b + j0 * bcs, brs, bcs, beta, c + j0, ldc);
    });
  }
  return parallel_items(m, static_cast<double>(n) * k, [&](int64_t i0, int64_t i1) {
    run_dots(kern, i1 - i0, n, k, alpha, a + i0 * ars, ars, b, brs, bcs, beta, c + i0 * ldc, ldc);
  });
}

bool run_tiled_parallel(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, float alpha,
                        const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
                        int64_t bcs, float beta, float* c, int64_t ldc, const float* prepacked_b,
                        const PackedA* prepacked_a, const SgemmEpilogue* epi) {
  const int64_t threads = threads_for(m, n, k);
  if (threads <= 1)
    return false;
  // Start from the blocks the serial loops make anyway and cut the dimension with more
  // register tiles per block until there are two rectangles per thread (dynamic claiming then
  // evens out a thread that starts late on a shared machine). A prepacked B holds its panels
  // in jc blocks of the whole width, so with one only the rows are cut: every rectangle then
  // spans all columns and reads the same panels the unsplit loops would.
  const bool may_cut_cols = prepacked_b == nullptr;
  const int64_t m_tiles = (m + kern.mr - 1) / kern.mr, n_tiles = (n + kern.nr - 1) / kern.nr;
  int64_t row_blocks = (m + kern.mc - 1) / kern.mc;
  int64_t col_blocks = may_cut_cols ? (n + kern.nc - 1) / kern.nc : 1;
  while (row_blocks * col_blocks < 2 * threads) {
    const bool cut_cols = n_tiles / col_blocks >= m_tiles / row_blocks;
    if (may_cut_cols && cut_cols && col_blocks < n_tiles)
      ++col_blocks;
    else if (row_blocks < m_tiles)
      ++row_blocks;
    else if (may_cut_cols && col_blocks < n_tiles)
      ++col_blocks;
    else
      break;
  }
  // Each rectangle packs its own B panels unless B was packed ahead of time, so the row blocks
  // of one column range all pack the same B. When only rows are cut (a convolution's tall
  // products on small images: a 7x7 layer has 49 columns), one rectangle per thread: each
  // thread packs B once, as the serial loops do, and the rows divide evenly (three mc blocks
  // of a 960-row product left one of two threads idle a third of the time).
  if (prepacked_b == nullptr && col_blocks == 1 && row_blocks > 1)
    row_blocks = min64(threads, m_tiles);
  const int64_t height = (m_tiles + row_blocks - 1) / row_blocks * kern.mr;
  const int64_t width = (n_tiles + col_blocks - 1) / col_blocks * kern.nr;
  row_blocks = (m + height - 1) / height;
  col_blocks = (n + width - 1) / width;
  if (row_blocks * col_blocks < 2)
    return false;
  return extension::threadpool::get_threadpool()->run_tasks(
      [&](size_t task) {
        const int64_t i0 = static_cast<int64_t>(task) / col_blocks * height;
        const int64_t j0 = static_cast<int64_t>(task) % col_blocks * width;
        // A prepacked A's panels for the rectangle's rows (i0 is a multiple of mr).
        const SgemmEpilogue rect_epi = epi != nullptr ? epilogue_from(*epi, i0) : SgemmEpilogue{};
        PackedA rect_a{};
        if (prepacked_a != nullptr)
          rect_a = PackedA{prepacked_a->panels, prepacked_a->m_round, prepacked_a->row0 + i0};
        run_tiled(kern, min64(height, m - i0), min64(width, n - j0), k, alpha, a + i0 * ars, ars,
                  acs, b + j0 * bcs, brs, bcs, beta, c + i0 * ldc + j0, ldc, nullptr, 0,
                  prepacked_b, prepacked_a != nullptr ? &rect_a : nullptr,
                  epi != nullptr ? &rect_epi : nullptr);
      },
      static_cast<size_t>(row_blocks * col_blocks));
}

}  // namespace

size_t sgemm_workspace_size(int64_t m, int64_t n, int64_t k) {
  if (m <= 0 || n <= 0 || k <= 0)
    return 0;
  size_t best = 0;
  for (const SgemmUkernel* kern : kAllKernels) {
    size_t s = workspace_for(*kern, m, n, k);
    if (s > best)
      best = s;
  }
  return best;
}

void sgemm(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
           int64_t ldc, void* workspace, size_t workspace_bytes) {
  const Isa isa = active_isa();
  run(kernel_for(isa), vmath_for(isa), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
      ldc, workspace, workspace_bytes);
}

bool sgemm_packs_b(Isa isa, Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k) {
  if (m <= 0 || n <= 0 || k <= 0)
    return false;
  // Strides as run() derives them (the leading dimensions do not change the choice).
  const int64_t acs = trans_a == Trans::kNo ? 1 : 2;
  const int64_t brs = trans_b == Trans::kNo ? 2 : 1;
  const int64_t bcs = trans_b == Trans::kNo ? 1 : 2;
  return choose_path(kernel_for(isa), m, n, k, acs, brs, bcs) == Path::kTiled;
}

size_t sgemm_packed_b_size(Isa isa, int64_t k, int64_t n) {
  const SgemmUkernel& kern = kernel_for(isa);
  int64_t floats = 0;
  for (int64_t jc = 0; jc < n; jc += kern.nc)
    floats += round_up(min64(kern.nc, n - jc), kern.nr) * k;
  return kPackedHeaderBytes + static_cast<size_t>(floats) * sizeof(float);
}

void sgemm_pack_b(Isa isa, Trans trans_b, int64_t k, int64_t n, const float* b, int64_t ldb,
                  void* dst) {
  const SgemmUkernel& kern = kernel_for(isa);
  // The level kernel_for() actually used (requests above the CPU's are clamped).
  const Isa used = static_cast<int>(isa) > static_cast<int>(detected_isa()) ? detected_isa() : isa;
  const PackedHeader h{static_cast<int32_t>(used), static_cast<int32_t>(trans_b), k, n, ldb};
  std::memcpy(dst, &h, sizeof h);
  const int64_t brs = trans_b == Trans::kNo ? ldb : 1;
  const int64_t bcs = trans_b == Trans::kNo ? 1 : ldb;
  float* out = reinterpret_cast<float*>(static_cast<char*>(dst) + kPackedHeaderBytes);
  // The blocks in the order run() walks them; each exactly as run() would pack it.
  for (int64_t jc = 0; jc < n; jc += kern.nc) {
    const int64_t nc = min64(kern.nc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kern.kc) {
      const int64_t kc = min64(kern.kc, k - pc);
      pack_b(b + pc * brs + jc * bcs, brs, bcs, kc, nc, kern.nr, out);
      out += round_up(nc, kern.nr) * kc;
    }
  }
}

void sgemm_with_packed_b(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                         const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                         float* c, int64_t ldc, const void* packed_b) {
  sgemm_prepacked_b(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, packed_b,
                    nullptr, 0);
}

size_t sgemm_prepacked_b_size(int64_t k, int64_t n) {
  return sgemm_packed_b_size(active_isa(), k, n);
}

void sgemm_prepack_b(Trans trans_b, int64_t k, int64_t n, const float* b, int64_t ldb, void* dst) {
  sgemm_pack_b(active_isa(), trans_b, k, n, b, ldb, dst);
}

void sgemm_prepacked_b(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                       const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                       float* c, int64_t ldc, const void* packed_b, void* workspace,
                       size_t workspace_bytes) {
  const Isa isa = active_isa();
  const float* panels = nullptr;
  if (packed_b != nullptr) {
    PackedHeader h;
    std::memcpy(&h, packed_b, sizeof h);
    if (h.isa == static_cast<int32_t>(isa) && h.trans == static_cast<int32_t>(trans_b) &&
        h.k == k && h.other == n && h.ld == ldb) {
      panels =
          reinterpret_cast<const float*>(static_cast<const char*>(packed_b) + kPackedHeaderBytes);
    }
  }
  run(kernel_for(isa), vmath_for(isa), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
      ldc, workspace, workspace_bytes, panels);
}

size_t sgemm_packed_a_size(Isa isa, int64_t m, int64_t k) {
  const SgemmUkernel& kern = kernel_for(isa);
  return kPackedHeaderBytes + static_cast<size_t>(round_up(m, kern.mr) * k) * sizeof(float);
}

void sgemm_pack_a(Isa isa, int64_t m, int64_t k, const float* a, int64_t lda, void* dst) {
  const SgemmUkernel& kern = kernel_for(isa);
  const Isa used = static_cast<int>(isa) > static_cast<int>(detected_isa()) ? detected_isa() : isa;
  const PackedHeader h{static_cast<int32_t>(used), static_cast<int32_t>(Trans::kNo), k, m, lda};
  std::memcpy(dst, &h, sizeof h);
  float* out = reinterpret_cast<float*>(static_cast<char*>(dst) + kPackedHeaderBytes);
  const int64_t m_round = round_up(m, kern.mr);
  // Each kc block holds all rows' panels, each exactly as run_tiled would pack it (alpha 1).
  for (int64_t pc = 0; pc < k; pc += kern.kc) {
    const int64_t kc = min64(kern.kc, k - pc);
    pack_a(a + pc, lda, 1, m, kc, kern.mr, 1.0f, out);
    out += m_round * kc;
  }
}

void sgemm_with_packed_a(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                         const float* b, int64_t ldb, float* c, int64_t ldc, const void* packed_a,
                         void* workspace, size_t workspace_bytes, const SgemmEpilogue* epi) {
  const Isa isa = active_isa();
  const SgemmUkernel& kern = kernel_for(isa);
  PackedA pa{nullptr, round_up(m, kern.mr), 0};
  if (packed_a != nullptr) {
    PackedHeader h;
    std::memcpy(&h, packed_a, sizeof h);
    if (h.isa == static_cast<int32_t>(isa) && h.trans == static_cast<int32_t>(Trans::kNo) &&
        h.k == k && h.other == m && h.ld == lda) {
      pa.panels =
          reinterpret_cast<const float*>(static_cast<const char*>(packed_a) + kPackedHeaderBytes);
    }
  }
  run(kern, vmath_for(isa), Trans::kNo, Trans::kNo, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc,
      workspace, workspace_bytes, nullptr, pa.panels != nullptr ? &pa : nullptr, epi);
}

bool sgemm_fuses_epilogue() {
  return kernel_for(active_isa()).run_epilogue != nullptr;
}

void sgemm_isa(Isa isa, Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
               int64_t ldc, void* workspace, size_t workspace_bytes) {
  run(kernel_for(isa), vmath_for(isa), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
      ldc, workspace, workspace_bytes);
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
