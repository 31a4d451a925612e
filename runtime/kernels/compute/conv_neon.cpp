// Direct convolution loops for the neon level: conv_kernels_impl.inc compiled with this file's
// flags (see mk/kernels.mk), in its own namespace.
#define CONV_ISA_NAMESPACE isa_neon
#define CONV_TABLE_NAME kConvNeon
#include "conv_kernels_impl.inc"
