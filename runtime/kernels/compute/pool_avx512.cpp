// Pooling rows for the avx512 level: pool_kernels_impl.inc compiled with this file's flags
// (mk/kernels.mk), 16 float lanes, in its own namespace.
#define POOL_ISA_NAMESPACE isa_avx512
#define POOL_LANES 16
#define POOL_TABLE_NAME kPoolAvx512
#define POOL_TABLE_LABEL "avx512"
#include "pool_kernels_impl.inc"
