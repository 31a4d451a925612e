// qd8 x qb4w: packing, row quantization and the variant dispatch (qd8_qb4w.h).
#include "qd8_qb4w.h"

#include <cmath>
#include <cstring>

#include "parallel.h"
#include "qd8_qb4w_kernels.h"

namespace executorch {
namespace kernels {
namespace compute {
namespace {

const Qd8Qb4wKernel& kernel_for(Isa isa) {
  // Clamp again: an explicit request above what the CPU reports must never reach an ISA TU.
  if (static_cast<int>(isa) > static_cast<int>(detected_isa()))
    isa = detected_isa();
#if defined(__x86_64__)
  // The AVX-512 variant needs VNNI besides the F/VL/BW the level stands for; without it the
  // AVX2 variant runs.
  static const bool has_vnni = __builtin_cpu_supports("avx512vnni");
  if (isa == Isa::kAvx512 && has_vnni)
    return kQd8Qb4wAvx512Vnni;
  if (isa != Isa::kBaseline)
    return kQd8Qb4wAvx2;
#endif
  return kQd8Qb4wBaseline;
}

int weight_at(const uint8_t* nibbles, int64_t k, int64_t row, int64_t col) {
  const int64_t i = row * k + col;
  const uint8_t b = nibbles[i / 2];
  return ((i % 2 == 0) ? (b & 0x0F) : (b >> 4)) - 8;
}

}  // namespace

bool qb4w_shape_valid(int64_t n, int64_t k, int64_t block) {
  return n > 0 && k > 0 && block > 0 && block % 8 == 0 && block <= kQb4wMaxBlock && k % block == 0;
}

size_t qb4w_packed_size(int64_t n, int64_t k, int64_t block) {
  if (!qb4w_shape_valid(n, k, block))
    return 0;
  const int64_t panels = (n + kQb4wPanel - 1) / kQb4wPanel;
  return static_cast<size_t>(panels) * qb4w_panel_bytes(k, block);
}

bool qb4w_pack(int64_t n, int64_t k, int64_t block, const uint8_t* nibbles, const float* scales,
               void* packed) {
  if (!qb4w_shape_valid(n, k, block))
    return false;
  const int64_t blocks = k / block;
  uint8_t* p = static_cast<uint8_t*>(packed);
  for (int64_t n0 = 0; n0 < n; n0 += kQb4wPanel) {
    float* t = reinterpret_cast<float*>(p);
    p += 64;
    for (int64_t j = 0; j < kQb4wPanel; ++j) {
      // XNNPACK's packing folds the weights' zero-point term into one float per column, in
      // runs of 16 k, in order: the same rounding here.
      float term = 0.0f;
      for (int64_t k0 = 0; n0 + j < n && k0 < k; k0 += 16) {
        int32_t sum = 0;
        for (int64_t i = k0; i < k0 + 16 && i < k; ++i)
          sum += weight_at(nibbles, k, n0 + j, i);
        term = term - static_cast<float>(sum) * scales[(n0 + j) * blocks + k0 / block];
      }
      t[j] = term;
    }
    for (int64_t b = 0; b < blocks; ++b) {
      float* s = reinterpret_cast<float*>(p);
      p += 64;
      for (int64_t j = 0; j < kQb4wPanel; ++j)
        s[j] = n0 + j < n ? scales[(n0 + j) * blocks + b] : 0.0f;
      for (int64_t k0 = b * block; k0 < (b + 1) * block; k0 += 8) {
        for (int64_t j = 0; j < kQb4wPanel; ++j) {
          for (int64_t i = 0; i < 4; ++i) {
            int lo = 0, hi = 0;
            if (n0 + j < n) {
              lo = weight_at(nibbles, k, n0 + j, k0 + i);
              hi = weight_at(nibbles, k, n0 + j, k0 + 4 + i);
            }
            p[4 * j + i] = static_cast<uint8_t>((lo & 0x0F) | ((hi & 0x0F) << 4));
          }
        }
        p += 64;
      }
    }
  }
  return true;
}

void qd8_quantize_row(int64_t k, const float* x, uint8_t* u, int32_t* zero_point, float* scale) {
  kernel_for(active_isa()).quantize_row(k, x, u, zero_point, scale);
}

void qd8_qb4w_gemm(int64_t m, int64_t n, int64_t k, int64_t block, const uint8_t* u, int64_t ldu,
                   const int32_t* zero_point, const float* scale, const void* packed,
                   const float* bias, float lo, float hi, float* y, int64_t ldy) {
  qd8_qb4w_gemm_isa(active_isa(), m, n, k, block, u, ldu, zero_point, scale, packed, bias, lo, hi,
                    y, ldy);
}

void qd8_qb4w_gemm_isa(Isa isa, int64_t m, int64_t n, int64_t k, int64_t block, const uint8_t* u,
                       int64_t ldu, const int32_t* zero_point, const float* scale,
                       const void* packed, const float* bias, float lo, float hi, float* y,
                       int64_t ldy) {
  if (m <= 0 || !qb4w_shape_valid(n, k, block))
    return;
  // Columns are independent: the thread pool takes ranges of whole panels, each the same bits
  // as in one call.
  const Qd8Qb4wKernel& kernel = kernel_for(isa);
  const uint8_t* base = static_cast<const uint8_t*>(packed);
  const size_t panel_bytes = qb4w_panel_bytes(k, block);
  const int64_t panels = (n + kQb4wPanel - 1) / kQb4wPanel;
  parallel_items(panels, static_cast<double>(m) * kQb4wPanel * k, [&](int64_t b, int64_t e) {
    const int64_t n0 = b * kQb4wPanel, n1 = e * kQb4wPanel < n ? e * kQb4wPanel : n;
    kernel.run(m, n1 - n0, k, block, u, ldu, zero_point, scale,
               base + static_cast<size_t>(b) * panel_bytes, bias != nullptr ? bias + n0 : nullptr,
               lo, hi, y + n0, ldy);
  });
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
