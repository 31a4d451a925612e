// Vector math for the avx512 level: vmath_kernels_impl.inc compiled with this file's flags
// (mk/kernels.mk), 16 float lanes, in its own namespace.
#define VMATH_ISA_NAMESPACE isa_avx512
#define VMATH_LANES 16
#define VMATH_TABLE_NAME kVmathAvx512
#define VMATH_TABLE_LABEL "avx512"
#include "vmath_kernels_impl.inc"
