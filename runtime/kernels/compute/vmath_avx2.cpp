// Vector math for the avx2 level: vmath_kernels_impl.inc compiled with this file's flags
// (mk/kernels.mk), 8 float lanes, in its own namespace.
#define VMATH_ISA_NAMESPACE isa_avx2
#define VMATH_LANES 8
#define VMATH_TABLE_NAME kVmathAvx2
#define VMATH_TABLE_LABEL "avx2"
#include "vmath_kernels_impl.inc"
