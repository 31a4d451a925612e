/*
 * The Tensor extension in one include: TensorPtr and its factories, and
 * TensorAccessor.
 */
#pragma once

#include <executorch/extension/tensor/tensor_accessor.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/extension/tensor/tensor_ptr_maker.h>
