// NHWC convolution loops for the neon level: conv_nhwc_kernels_impl.inc compiled with this
// file's flags (mk/kernels.mk), in its own namespace.
#define CONV_NHWC_ISA_NAMESPACE isa_neon
#define CONV_NHWC_TABLE_NAME kConvNhwcNeon
#include "conv_nhwc_kernels_impl.inc"
