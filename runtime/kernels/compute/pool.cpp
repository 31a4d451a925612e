// Picks the pooling row table for an ISA level (baseline code: selecting runs no ISA code).
#include "pool.h"

namespace executorch {
namespace kernels {
namespace compute {

const PoolKernels& pool_for(Isa isa) {
#if defined(__x86_64__)
  return variant_for(isa, kPoolBaseline, kPoolAvx2, kPoolAvx512);
#else
  // The baseline table is the portable vector code, 4 lanes (Advanced SIMD on AArch64).
  (void)isa;
  return kPoolBaseline;
#endif
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
