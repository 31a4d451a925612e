// Integer NHWC convolution loops for the AArch64 neondot level: qconv_nhwc_kernels_impl.inc
// compiled with this file's flags (mk/kernels.mk), the GEMM on SDOT.
#define QCONV_ISA_NAMESPACE qisa_neondot
#include "qconv_nhwc_kernels_impl.inc"

namespace executorch {
namespace kernels {
namespace compute {

extern const QConvNhwcKernels kQConvNhwcNeonDot = {
    qisa_neondot::gemm_strip_sdot,
    qisa_neondot::depthwise_row,
    qisa_neondot::quantize_u8,
    qisa_neondot::quantize_s16,
    "neondot",
};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
