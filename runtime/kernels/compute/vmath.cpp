// Picks the vector math table for an ISA level (baseline code: selecting runs no ISA code).
#include "vmath.h"

namespace executorch {
namespace kernels {
namespace compute {

const VmathKernels& vmath_for(Isa isa) {
#if defined(__x86_64__)
  return variant_for(isa, kVmathBaseline, kVmathAvx2, kVmathAvx512);
#else
  // No vector math variants are built for this architecture yet.
  (void)isa;
  return kVmathBaseline;
#endif
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
