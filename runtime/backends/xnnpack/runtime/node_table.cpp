// Which builder handles which node type. A type that is not listed is refused at init with
// NotSupported naming it (graph_builder.cpp).
#include "node_context.h"

namespace executorch {
namespace backends {
namespace xnnpack {

NodeBuilder find_node_builder(fb::XNodeUnion type) {
  using T = fb::XNodeUnion;
  switch (type) {
    case T::XNNAbs:
    case T::XNNNegate:
    case T::XNNSquare:
    case T::XNNSquareRoot:
    case T::XNNReciprocalSquareRoot:
    case T::XNNCeiling:
    case T::XNNFloor:
    case T::XNNTanh:
    case T::XNNExp:
    case T::XNNLog:
    case T::XNNSin:
    case T::XNNCos:
    case T::XNNSigmoid:
    case T::XNNGelu:
    case T::XNNHardswish:
    case T::XNNClamp:
    case T::XNNLeakyReLU:
    case T::XNNELU:
    case T::XNNCopy:
    case T::XNNConvert:
      return &build_unary;
    case T::XNNAdd:
    case T::XNNSubtract:
    case T::XNNMultiply:
    case T::XNNDiv:
    case T::XNNMinimum:
    case T::XNNMaximum:
    case T::XNNPReLU:
      return &build_binary;
    case T::XNNSoftmax:
      return &build_softmax;
    case T::XNNFullyConnected:
      return &build_fully_connected;
    case T::XNNBatchMatrixMultiply:
      return &build_batch_matmul;
    case T::XNNConv2d:
      return &build_conv2d;
    case T::XNNDepthwiseConv2d:
      return &build_depthwise_conv2d;
    case T::XNNMaxPooling2d:
    case T::XNNAvgPooling2d:
      return &build_pooling;
    case T::XNNGlobalAvgPooling2d:
      return &build_global_avg_pooling;
    case T::XNNStaticTranspose:
      return &build_transpose;
    case T::XNNStaticReshape:
      return &build_reshape;
    case T::XNNConcatenate2:
    case T::XNNConcatenate3:
    case T::XNNConcatenate4:
    case T::XNNConcatenate5:
      return &build_concatenate;
    case T::XNNStaticSlice:
      return &build_slice;
    case T::XNNStaticConstantPad:
      return &build_constant_pad;
    case T::XNNConvTranspose2d:
      return &build_conv_transpose2d;
    case T::XNNStaticResizeBilinear2D:
      return &build_resize_bilinear;
    case T::XNNArgMaxPooling2d:
      return &build_argmax_pooling;
    case T::XNNScaledDotProductAttention:
      return &build_sdpa;
    default:
      return nullptr;
  }
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
