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
constexpr const SgemmUkernel* kAllKernels[] = {&kSgemmBaseline, &kSgemmAvx2, &kSgemmAvx512,
                                               &kSgemmAvx512Narrow};
#else
constexpr const SgemmUkernel* kAllKernels[] = {&kSgemmBaseline};
#endif

inline int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}
inline int64_t round_up(int64_t v, int64_t m) {
  return (v + m - 1) / m * m;
}

// The level's second register tile, for products with few rows, or null.
const SgemmUkernel* narrow_kernel_for(Isa isa) {
#if defined(__x86_64__)
  if (&kernel_for(isa) == &kSgemmAvx512)
    return &kSgemmAvx512Narrow;
#endif
  (void)isa;
  return nullptr;
}

constexpr int64_t kNarrowAnyDepthRows = 160, kNarrowMaxDepth = 2304;

// The tile for an m x n x k product with A packed ahead of time (the convolution's weight times
// its columns): of the level's tiles, the one that computes the fewest padded outputs (a
// product with 32 rows fills three 14-row tiles to 42 rows, four 8-row tiles exactly); the main
// one on a tie. Every tile of a level has the same kc, so the choice never changes a result.
const SgemmUkernel& kernel_for_shape(Isa isa, int64_t m, int64_t n, int64_t k) {
  const SgemmUkernel& main = kernel_for(isa);
  const SgemmUkernel* narrow = narrow_kernel_for(isa);
  // Many rows and a deep product (512 rows, k = 4608: ResNet's last 3x3 convolutions) ran
  // slower on the narrow tile, whatever the padding: its wider B panel competes with the A
  // panels streaming through L1.
  if (narrow == nullptr || m <= 0 || n <= 0 || (m > kNarrowAnyDepthRows && k > kNarrowMaxDepth))
    return main;
  const auto padded = [&](const SgemmUkernel& k) {
    return static_cast<double>(round_up(m, k.mr)) * static_cast<double>(round_up(n, k.nr));
  };
  return padded(*narrow) < padded(main) ? *narrow : main;
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

// kc rows of N floats, rs apart in src, into a panel of kc x N: a copy of a size known at compile
// time, which the compiler inlines (a memcpy of a run-time size is a library call per row).
template <int N>
void copy_panel_rows(const float* src, int64_t rs, int64_t kc, float* panel) {
  for (int64_t p = 0; p < kc; ++p)
    std::memcpy(panel + p * N, src + p * rs, N * sizeof(float));
}

// A whole nr-wide panel of a row-major B through copy_panel_rows, if nr is one of the kernels'.
bool copy_full_panel(const float* src, int64_t rs, int64_t kc, int nr, float* panel) {
  switch (nr) {
    case 8:
      copy_panel_rows<8>(src, rs, kc, panel);
      return true;
    case 16:
      copy_panel_rows<16>(src, rs, kc, panel);
      return true;
    case 32:
      copy_panel_rows<32>(src, rs, kc, panel);
      return true;
    case 48:
      copy_panel_rows<48>(src, rs, kc, panel);
      return true;
    default:
      return false;
  }
}

// Packs op(B)[p0:p0+kc, j0:j0+nc] into nr-wide micro-panels, zero-padded.
// op(B)(p, j) = b[p * rs + j * cs].
void pack_b(const float* b, int64_t rs, int64_t cs, int64_t kc, int64_t nc, int nr, float* dst) {
  for (int64_t j0 = 0; j0 < nc; j0 += nr) {
    int64_t cols = min64(nr, nc - j0);
    float* panel = dst + j0 * kc;
    if (cs == 1 && cols == nr && copy_full_panel(b + j0, rs, kc, nr, panel))
      continue;
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
  int32_t mr;  // a packed A: the tile rows it was packed for (0 in a packed B)
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

// A caller's B packer and the column of B where the product (or a rectangle of it) starts.
struct BPackerAt {
  const SgemmBPacker* packer;
  int64_t col0;
};

// sgemm_unpacked when B exists only through a packer (there is no B to read): B comes one
// panel of kUnpackedPanelCols columns and at most kUnpackedPanelDepth rows at a time into a
// buffer on the stack, so this path, too, needs no memory it might not get.
void sgemm_unpacked_from_packer(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                int64_t ars, int64_t acs, const BPackerAt& b_packer, float beta,
                                float* c, int64_t ldc) {
  constexpr int64_t kUnpackedPanelCols = 16, kUnpackedPanelDepth = 64;
  alignas(64) float panel[kUnpackedPanelCols * kUnpackedPanelDepth];
  scale_c(m, n, beta, c, ldc);
  for (int64_t j0 = 0; j0 < n; j0 += kUnpackedPanelCols) {
    const int64_t nc = min64(kUnpackedPanelCols, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kUnpackedPanelDepth) {
      const int64_t kc = min64(kUnpackedPanelDepth, k - p0);
      b_packer.packer->pack(b_packer.packer->ctx, p0, kc, b_packer.col0 + j0, nc,
                            kUnpackedPanelCols, panel);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < nc; ++j) {
          float s = 0.0f;
          for (int64_t p = 0; p < kc; ++p)
            s += a[i * ars + (p0 + p) * acs] * panel[p * kUnpackedPanelCols + j];
          c[i * ldc + j0 + j] += alpha * s;
        }
      }
    }
  }
}

void run_tiled(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs, int64_t bcs,
               float beta, float* c, int64_t ldc, void* workspace, size_t workspace_bytes,
               const float* prepacked_b, const PackedA* prepacked_a, const SgemmEpilogue* epi,
               const BPackerAt* b_packer, const float* col_bias);
bool run_axpys_parallel(const VmathKernels& vm, int64_t m, int64_t n, int64_t k, float alpha,
                        const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
                        float beta, float* c, int64_t ldc);
bool run_dots_parallel(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, float alpha,
                       const float* a, int64_t ars, const float* b, int64_t brs, int64_t bcs,
                       float beta, float* c, int64_t ldc);
bool run_tiled_parallel(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, float alpha,
                        const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
                        int64_t bcs, float beta, float* c, int64_t ldc, const float* prepacked_b,
                        const PackedA* prepacked_a, const SgemmEpilogue* epi,
                        const SgemmBPacker* b_packer, const float* col_bias);

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

// C = tile + beta * C over the valid rows x cols of an edge tile (C not read when beta is 0),
// or C = tile + col_bias[j] (C not read; the sum beta 1 over a C holding the bias gives).
void merge_edge_tile(const float* tile, int nr, float* cp, int64_t ldc, int64_t rows, int64_t cols,
                     float beta, const float* col_bias = nullptr) {
  for (int64_t ii = 0; ii < rows; ++ii) {
    float* crow = cp + ii * ldc;
    const float* trow = tile + ii * nr;
    if (col_bias != nullptr) {
      for (int64_t jj = 0; jj < cols; ++jj)
        crow[jj] = col_bias[jj] + trow[jj];
    } else if (beta == 0.0f) {
      for (int64_t jj = 0; jj < cols; ++jj)
        crow[jj] = trow[jj];
    } else if (beta == 1.0f) {
      for (int64_t jj = 0; jj < cols; ++jj)
        crow[jj] += trow[jj];
    } else {
      for (int64_t jj = 0; jj < cols; ++jj)
        crow[jj] = trow[jj] + beta * crow[jj];
    }
  }
}

// Row `row0` of the product's epilogue: the same clamp, the bias from that row on.
SgemmEpilogue epilogue_from(const SgemmEpilogue& epi, int64_t row0) {
  SgemmEpilogue e = epi;
  if (e.row_bias != nullptr)
    e.row_bias += row0;
  return e;
}

// Rows of the next tile when A is read in place (any row count runs), with `left` rows to go:
// mr, except that a last tile of under 4 rows would leave the FMA units waiting on latency
// (2 accumulator chains a row, 8 needed to fill two pipelined units), so the last mr + r rows
// split in two tiles of about half each (197 = 13 * 14 + 8 + 7, 128 = 8 * 14 + 8 + 8).
int64_t direct_tile_rows(int64_t mr, int64_t left) {
  constexpr int64_t kShortTile = 4;
  if (left > mr && left - mr < kShortTile)
    return (left + 1) / 2;
  return left < mr ? left : mr;
}

// Whether the tiled path reads A in place (run_tiled's direct_a) for these operands.
bool reads_a_in_place(const SgemmUkernel& kern, float alpha, int64_t acs,
                      const PackedA* prepacked_a, const SgemmEpilogue* epi) {
  return kern.run_direct_a != nullptr && prepacked_a == nullptr && acs == 1 && alpha == 1.0f &&
         epi == nullptr;
}

// Each of the m rows of C = the n floats of row.
void fill_rows(float* c, int64_t ldc, int64_t m, int64_t n, const float* row) {
  for (int64_t i = 0; i < m; ++i)
    std::memcpy(c + i * ldc, row, static_cast<size_t>(n) * sizeof(float));
}

// prepacked_b: every B block of the tiled path as pack_b writes it, jc blocks in order, each
// holding its pc blocks in order (see sgemm_pack_b); or null to pack on the fly. col_bias: n
// floats that C starts from in every row instead of beta * C (then beta is ignored), or null.
void run(const SgemmUkernel& kern, const VmathKernels& vm, Trans ta, Trans tb, int64_t m, int64_t n,
         int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
         float beta, float* c, int64_t ldc, void* workspace, size_t workspace_bytes,
         const float* prepacked_b = nullptr, const PackedA* prepacked_a = nullptr,
         const SgemmEpilogue* epi = nullptr, const SgemmBPacker* b_packer = nullptr,
         const float* col_bias = nullptr) {
  if (m <= 0 || n <= 0)
    return;
  if (col_bias != nullptr) {
    // The in-place kernels add the bias to the first depth block's tiles as they store them;
    // every other path starts from a C that holds it, which sums the same.
    const int64_t acs = ta == Trans::kNo ? 1 : lda;
    const int64_t brs = tb == Trans::kNo ? ldb : 1, bcs = tb == Trans::kNo ? 1 : ldb;
    if (k <= 0 || !reads_a_in_place(kern, alpha, acs, prepacked_a, epi) ||
        choose_path(kern, m, n, k, acs, brs, bcs) != Path::kTiled) {
      fill_rows(c, ldc, m, n, col_bias);
      col_bias = nullptr;
    }
    beta = 1.0f;
  }
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
  // A B from a packer exists only as panels: the tiled path (the caller checked that it is the
  // one choose_path picks).
  switch (b_packer != nullptr ? Path::kTiled : choose_path(kern, m, n, k, acs, brs, bcs)) {
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
                         prepacked_a, epi, b_packer, col_bias))
    return;
  const BPackerAt at{b_packer, 0};
  run_tiled(kern, m, n, k, alpha, a, ars, acs, b, brs, bcs, beta, c, ldc, workspace,
            workspace_bytes, prepacked_b, prepacked_a, epi, b_packer != nullptr ? &at : nullptr,
            col_bias);
}

// The blocked loops of the header comment over the whole m x n product (or, from
// run_tiled_parallel, over one rectangle of it).
void run_tiled(const SgemmUkernel& kern, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs, int64_t bcs,
               float beta, float* c, int64_t ldc, void* workspace, size_t workspace_bytes,
               const float* prepacked_b, const PackedA* prepacked_a, const SgemmEpilogue* epi,
               const BPackerAt* b_packer, const float* col_bias) {
  int64_t a_floats, b_floats;
  packed_sizes(kern, m, n, k, &a_floats, &b_floats);
  size_t need = workspace_for(kern, m, n, k);
  void* ws = workspace;
  if (ws == nullptr || workspace_bytes < need) {
    ws = thread_scratch(ScratchSlot::kGemm, need);
    if (ws == nullptr) {
      if (col_bias != nullptr)
        fill_rows(c, ldc, m, n, col_bias);
      if (b_packer != nullptr)
        sgemm_unpacked_from_packer(m, n, k, alpha, a, ars, acs, *b_packer, beta, c, ldc);
      else
        sgemm_unpacked(m, n, k, alpha, a, ars, acs, b, brs, bcs, beta, c, ldc);
      apply_epilogue(epi, 0, c, ldc, m, n);
      return;
    }
  }
  float* packed_a = static_cast<float*>(align_up(ws));
  float* packed_b = static_cast<float*>(align_up(packed_a + a_floats));

  const int mr = kern.mr, nr = kern.nr;
  alignas(64) float tile[kSgemmMaxTile];
  // A row-major A is read in place (nothing to pack, alpha 1 folds into nothing), a partial
  // last row panel included: the kernel then computes only the rows there are.
  const bool direct_a = reads_a_in_place(kern, alpha, acs, prepacked_a, epi);

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
      } else if (b_packer != nullptr) {
        b_packer->packer->pack(b_packer->packer->ctx, pc, kc, b_packer->col0 + jc, nc, nr,
                               packed_b);
      } else {
        pack_b(b + pc * brs + jc * bcs, brs, bcs, kc, nc, nr, packed_b);
      }
      for (int64_t ic = 0; ic < m; ic += kern.mc) {
        const int64_t mc = min64(kern.mc, m - ic);
        const float* a_block = packed_a;
        if (prepacked_a != nullptr) {
          a_block = prepacked_a->panels + prepacked_a->m_round * pc + (prepacked_a->row0 + ic) * kc;
        } else if (!direct_a) {
          pack_a(a + ic * ars + pc * acs, ars, acs, mc, kc, mr, alpha, packed_a);
        }
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int64_t cols = min64(nr, nc - jr);
          const float* bp = b_block + jr * kc;
          for (int64_t ir = 0, rows = 0; ir < mc; ir += rows) {
            rows = direct_a ? direct_tile_rows(mr, mc - ir) : min64(mr, mc - ir);
            const float* ap = a_block + ir * kc;
            float* cp = c + (ic + ir) * ldc + (jc + jr);
            const float* a_rows = a + (ic + ir) * ars + pc;  // direct_a: the tile's rows of A
            if (direct_a) {
              // run() passes a col_bias only with direct_a: it takes the place of C in the first
              // depth block.
              const float* tile_bias =
                  pc == 0 && col_bias != nullptr ? col_bias + jc + jr : nullptr;
              if (cols == nr) {
                kern.run_direct_a(kc, a_rows, ars, bp, cp, ldc, beta_blk, static_cast<int>(rows),
                                  tile_bias);
                continue;
              }
              kern.run_direct_a(kc, a_rows, ars, bp, tile, nr, 0.0f, static_cast<int>(rows),
                                nullptr);
              merge_edge_tile(tile, nr, cp, ldc, rows, cols, beta_blk, tile_bias);
              continue;
            }
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
            merge_edge_tile(tile, nr, cp, ldc, rows, cols, beta_blk);
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
  const int64_t threads = threads_for(m, n, k);
  if (blocks < 2 || threads <= 1)
    return false;
  // One contiguous run of blocks per thread, so that each streams long pieces of B's rows. Each
  // tile of C is built in an aligned buffer and written once: built in place, the k axpys wrote
  // C's row k times, and where two threads' columns shared a cache line of C (a row not 64-byte
  // aligned) the line moved between the cores on every one of them. The 1 x 1280 by
  // 1280 x 1000 classifier ran slower on two threads than on one, in blocks of 64 columns.
  const int64_t per_thread = (blocks + threads - 1) / threads;
  return extension::parallel_for(0, blocks, per_thread, [&](int64_t j0, int64_t j1) {
    constexpr int64_t kTileCols = 8 * kBlock;  // long axpys: a call per B row and tile
    alignas(64) float tile[kAxpyMaxRows * kTileCols];
    for (int64_t c0 = j0 * kBlock; c0 < n && c0 < j1 * kBlock; c0 += kTileCols) {
      const int64_t cols = min64(min64(kTileCols, n - c0), j1 * kBlock - c0);
      const size_t bytes = static_cast<size_t>(cols) * sizeof(float);
      for (int64_t i = 0; i < m && beta != 0.0f; ++i)
        std::memcpy(tile + i * kTileCols, c + i * ldc + c0, bytes);
      run_axpys(vm, m, cols, k, alpha, a, ars, acs, b + c0, brs, beta, tile, kTileCols);
      for (int64_t i = 0; i < m; ++i)
        std::memcpy(c + i * ldc + c0, tile + i * kTileCols, bytes);
    }
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
                        const PackedA* prepacked_a, const SgemmEpilogue* epi,
                        const SgemmBPacker* b_packer, const float* col_bias) {
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
        const BPackerAt at{b_packer, j0};
        run_tiled(kern, min64(height, m - i0), min64(width, n - j0), k, alpha, a + i0 * ars, ars,
                  acs, b != nullptr ? b + j0 * bcs : b, brs, bcs, beta, c + i0 * ldc + j0, ldc,
                  nullptr, 0, prepacked_b, prepacked_a != nullptr ? &rect_a : nullptr,
                  epi != nullptr ? &rect_epi : nullptr, b_packer != nullptr ? &at : nullptr,
                  col_bias != nullptr ? col_bias + j0 : nullptr);
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
  const PackedHeader h{static_cast<int32_t>(used), static_cast<int32_t>(trans_b), k, n, ldb, 0};
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

// The panels of a packed B made for exactly these operands at `isa`, or null.
const float* packed_panels(const void* packed_b, Isa isa, Trans trans_b, int64_t k, int64_t n,
                           int64_t ldb) {
  if (packed_b == nullptr)
    return nullptr;
  PackedHeader h;
  std::memcpy(&h, packed_b, sizeof h);
  if (h.isa != static_cast<int32_t>(isa) || h.trans != static_cast<int32_t>(trans_b) || h.k != k ||
      h.other != n || h.ld != ldb)
    return nullptr;
  return reinterpret_cast<const float*>(static_cast<const char*>(packed_b) + kPackedHeaderBytes);
}

void sgemm_with_packed_b(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                         const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                         float* c, int64_t ldc, const void* packed_b) {
  sgemm_prepacked_b(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, packed_b,
                    nullptr, 0);
}

void sgemm_with_packed_b_col_bias(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k,
                                  const float* a, int64_t lda, const float* b, int64_t ldb,
                                  const float* col_bias, float* c, int64_t ldc,
                                  const void* packed_b) {
  const Isa isa = active_isa();
  run(kernel_for(isa), vmath_for(isa), trans_a, trans_b, m, n, k, 1.0f, a, lda, b, ldb, 1.0f, c,
      ldc, nullptr, 0, packed_panels(packed_b, isa, trans_b, k, n, ldb), nullptr, nullptr, nullptr,
      col_bias);
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
  run(kernel_for(isa), vmath_for(isa), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
      ldc, workspace, workspace_bytes, packed_panels(packed_b, isa, trans_b, k, n, ldb));
}

size_t sgemm_packed_a_size(Isa isa, int64_t m, int64_t k, int64_t n) {
  const SgemmUkernel& kern = n > 0 ? kernel_for_shape(isa, m, n, k) : kernel_for(isa);
  return kPackedHeaderBytes + static_cast<size_t>(round_up(m, kern.mr) * k) * sizeof(float);
}

void sgemm_pack_a(Isa isa, int64_t m, int64_t k, const float* a, int64_t lda, void* dst,
                  int64_t n) {
  const SgemmUkernel& kern = n > 0 ? kernel_for_shape(isa, m, n, k) : kernel_for(isa);
  const Isa used = static_cast<int>(isa) > static_cast<int>(detected_isa()) ? detected_isa() : isa;
  const PackedHeader h{
      static_cast<int32_t>(used), static_cast<int32_t>(Trans::kNo), k, m, lda, kern.mr};
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

namespace {

// sgemm_with_packed_a with B as stored (b, ldb) or from b_packer.
void with_packed_a(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                   int64_t ldb, const SgemmBPacker* b_packer, float* c, int64_t ldc,
                   const void* packed_a, void* workspace, size_t workspace_bytes,
                   const SgemmEpilogue* epi) {
  const Isa isa = active_isa();
  // The path as sgemm would choose it; only the tiled one has a choice of tile, and takes it
  // from the packed A when there is one (it was packed for one tile's rows).
  const SgemmUkernel* kern = &kernel_for(isa);
  const bool tiled = b_packer != nullptr || choose_path(*kern, m, n, k, 1, ldb, 1) == Path::kTiled;
  if (tiled)
    kern = &kernel_for_shape(isa, m, n, k);
  const float* panels = nullptr;
  if (packed_a != nullptr && tiled) {
    PackedHeader h;
    std::memcpy(&h, packed_a, sizeof h);
    const SgemmUkernel* narrow = narrow_kernel_for(isa);
    const SgemmUkernel* packed_for = h.mr == kernel_for(isa).mr                ? &kernel_for(isa)
                                     : narrow != nullptr && h.mr == narrow->mr ? narrow
                                                                               : nullptr;
    if (h.isa == static_cast<int32_t>(isa) && h.trans == static_cast<int32_t>(Trans::kNo) &&
        h.k == k && h.other == m && h.ld == lda && packed_for != nullptr) {
      kern = packed_for;
      panels =
          reinterpret_cast<const float*>(static_cast<const char*>(packed_a) + kPackedHeaderBytes);
    }
  }
  const PackedA pa{panels, round_up(m, kern->mr), 0};
  run(*kern, vmath_for(isa), Trans::kNo, Trans::kNo, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc,
      workspace, workspace_bytes, nullptr, panels != nullptr ? &pa : nullptr, epi, b_packer);
}

}  // namespace

void sgemm_with_packed_a(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                         const float* b, int64_t ldb, float* c, int64_t ldc, const void* packed_a,
                         void* workspace, size_t workspace_bytes, const SgemmEpilogue* epi) {
  with_packed_a(m, n, k, a, lda, b, ldb, nullptr, c, ldc, packed_a, workspace, workspace_bytes,
                epi);
}

bool sgemm_packed_a_tiles(int64_t m, int64_t n, int64_t k) {
  // B as the convolution stores it (row-major, contiguous rows); A row-major.
  return m > 0 && n > 0 && k > 0 &&
         choose_path(kernel_for(active_isa()), m, n, k, 1, 2, 1) == Path::kTiled;
}

void sgemm_with_packed_a_b_packer(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                  const SgemmBPacker& b, float* c, int64_t ldc,
                                  const void* packed_a, void* workspace, size_t workspace_bytes,
                                  const SgemmEpilogue* epi) {
  with_packed_a(m, n, k, a, lda, nullptr, 0, &b, c, ldc, packed_a, workspace, workspace_bytes, epi);
}

int64_t sgemm_packed_a_tile_columns(int64_t m, int64_t n, int64_t k) {
  const Isa isa = active_isa();
  const SgemmUkernel& whole = kernel_for_shape(isa, m, n, k);
  // Padded outputs of the tiles, a remainder column as two (a dot product per output is about
  // half as fast as a tile).
  double best =
      static_cast<double>(round_up(m, whole.mr)) * static_cast<double>(round_up(n, whole.nr));
  int64_t cols = n;
  const SgemmUkernel* narrow = narrow_kernel_for(isa);
  for (const SgemmUkernel* tile : {&kernel_for(isa), narrow}) {
    if (tile == nullptr)
      continue;
    const int64_t rem = n % tile->nr;
    if (rem == 0 || rem > kSgemmDotColumns || n < tile->nr)
      continue;
    const double cost = static_cast<double>(round_up(m, tile->mr)) * static_cast<double>(n - rem) +
                        2.0 * static_cast<double>(m) * static_cast<double>(rem);
    // The product over n - rem columns must pick this tile itself (kernel_for_shape).
    if (cost < best && &kernel_for_shape(isa, m, n - rem, k) == tile) {
      best = cost;
      cols = n - rem;
    }
  }
  return cols;
}

int64_t sgemm_packed_a_tile_cols(int64_t m, int64_t n, int64_t k) {
  return kernel_for_shape(active_isa(), m, n, k).nr;
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
