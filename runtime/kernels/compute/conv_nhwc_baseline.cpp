// NHWC convolution loops for the baseline level: conv_nhwc_kernels_impl.inc compiled with this
// file's flags (mk/kernels.mk), in its own namespace.
#define CONV_NHWC_ISA_NAMESPACE isa_baseline
#define CONV_NHWC_TABLE_NAME kConvNhwcBaseline
#include "conv_nhwc_kernels_impl.inc"
