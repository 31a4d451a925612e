// Picks the vector math table for an ISA level (baseline code: selecting runs no ISA code).
#include "vmath.h"

namespace executorch {
namespace kernels {
namespace compute {

const VmathKernels& vmath_for(Isa isa) {
  return variant_for(isa, kVmathBaseline, kVmathAvx2, kVmathAvx512);
}

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
