// Pooling rows for the avx2 level: pool_kernels_impl.inc compiled with this file's flags
// (mk/kernels.mk), 8 float lanes, in its own namespace.
#define POOL_ISA_NAMESPACE isa_avx2
#define POOL_LANES 8
#define POOL_TABLE_NAME kPoolAvx2
#define POOL_TABLE_LABEL "avx2"
#include "pool_kernels_impl.inc"
