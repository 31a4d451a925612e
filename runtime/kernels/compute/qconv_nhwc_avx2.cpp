// Integer NHWC convolution loops for the avx2 level: qconv_nhwc_kernels_impl.inc compiled with
// this file's flags (mk/kernels.mk).
#define QCONV_ISA_NAMESPACE qisa_avx2
#include "qconv_nhwc_kernels_impl.inc"

namespace executorch {
namespace kernels {
namespace compute {

extern const QConvNhwcKernels kQConvNhwcAvx2 = {
    qisa_avx2::gemm_strip_avx2,
    qisa_avx2::depthwise_row,
    qisa_avx2::quantize_u8,
    qisa_avx2::quantize_s16,
    "avx2",
};

}  // namespace compute
}  // namespace kernels
}  // namespace executorch
