/*
 * The tensor vocabulary as kernels and clients spell it:
 * executorch::aten::{Tensor, ScalarType, ArrayRef, ...}. In this portable
 * runtime every name resolves to the executorch::runtime::etensor type of
 * the same name (there is no ATen mode).
 */
#pragma once

#include <optional>
#include <string_view>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/bits_types.h>
#include <executorch/runtime/core/portable_type/complex.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/portable_type/float8_types.h>
#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/core/portable_type/optional.h>
#include <executorch/runtime/core/portable_type/qint_types.h>
#include <executorch/runtime/core/portable_type/scalar.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/core/portable_type/string_view.h>
#include <executorch/runtime/core/portable_type/tensor.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/core/portable_type/tensor_options.h>
#include <executorch/runtime/core/tensor_shape_dynamism.h>

/*
 * Namespace that holds the runtime classes which would differ between a
 * portable and an ATen build (Program, Method, Kernel, ...). Only the
 * portable build exists here, so it is always plain `runtime`.
 */
#ifndef ET_RUNTIME_NAMESPACE
#define ET_RUNTIME_NAMESPACE runtime
#endif

namespace executorch {
namespace aten {

using Tensor = ::executorch::runtime::etensor::Tensor;
using TensorImpl = ::executorch::runtime::etensor::TensorImpl;
using SizesType = TensorImpl::SizesType;
using DimOrderType = TensorImpl::DimOrderType;
using StridesType = TensorImpl::StridesType;
using TensorList = ::executorch::runtime::ArrayRef<Tensor>;
using ScalarType = ::executorch::runtime::etensor::ScalarType;
using Scalar = ::executorch::runtime::etensor::Scalar;
using MemoryFormat = ::executorch::runtime::etensor::MemoryFormat;
using Layout = ::executorch::runtime::etensor::Layout;
using Device = ::executorch::runtime::etensor::Device;
using DeviceType = ::executorch::runtime::etensor::DeviceType;
using DeviceIndex = ::executorch::runtime::etensor::DeviceIndex;
using Half = ::executorch::runtime::etensor::Half;
using BFloat16 = ::executorch::runtime::etensor::BFloat16;
template <typename T>
using complex = ::executorch::runtime::etensor::complex<T>;
using qint8 = ::executorch::runtime::etensor::qint8;
using quint8 = ::executorch::runtime::etensor::quint8;
using qint32 = ::executorch::runtime::etensor::qint32;
using quint4x2 = ::executorch::runtime::etensor::quint4x2;
using quint2x4 = ::executorch::runtime::etensor::quint2x4;
using bits1x8 = ::executorch::runtime::etensor::bits1x8;
using bits2x4 = ::executorch::runtime::etensor::bits2x4;
using bits4x2 = ::executorch::runtime::etensor::bits4x2;
using bits8 = ::executorch::runtime::etensor::bits8;
using bits16 = ::executorch::runtime::etensor::bits16;
using Float8_e5m2 = ::executorch::runtime::etensor::Float8_e5m2;
using Float8_e4m3fn = ::executorch::runtime::etensor::Float8_e4m3fn;
using Float8_e5m2fnuz = ::executorch::runtime::etensor::Float8_e5m2fnuz;
using Float8_e4m3fnuz = ::executorch::runtime::etensor::Float8_e4m3fnuz;
using TensorShapeDynamism = ::executorch::runtime::TensorShapeDynamism;

template <typename T>
using ArrayRef = ::executorch::runtime::ArrayRef<T>;
using IntArrayRef = ::executorch::runtime::IntArrayRef;
template <typename T>
using OptionalArrayRef = std::optional<ArrayRef<T>>;
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

using std::nullopt;
using std::nullopt_t;
using std::optional;
using std::string_view;

using ::executorch::runtime::etensor::compute_numel;
using ::executorch::runtime::etensor::safe_numel;

}  // namespace aten
}  // namespace executorch

/* Deprecated older name of executorch::aten. */
namespace exec_aten = ::executorch::aten;

namespace torch {
namespace executor {
using TensorList = ::executorch::aten::TensorList;
}  // namespace executor
}  // namespace torch
