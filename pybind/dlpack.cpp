// Import of tensors through the DLPack exchange protocol (`__dlpack__` / `__dlpack_device__`),
// so torch tensors and any other producer work without this package importing them.
//
// The structs below are DLPack's public C ABI (dlpack.h, v0.8 unversioned and v1.x
// versioned), written out here from the specification; only the fields' order, types and
// the enum values matter.
#include "common.h"

#include <cstring>

namespace etpy {
namespace {

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null means compact row-major
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned*);
  uint64_t flags;
  DLTensor dl_tensor;
};

// DLManagedTensorVersioned::flags bit: the producer's memory must not be written.
constexpr uint64_t kDLFlagReadOnly = uint64_t{1} << 0;

constexpr int32_t kDLCPU = 1;
constexpr int32_t kDLCUDAHost = 3;
constexpr int32_t kDLCUDAManaged = 13;
constexpr uint8_t kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6;
constexpr uint32_t kDLPackMajor = 1;

const char* device_name(int32_t t) {
  switch (t) {
    case 1:
      return "cpu";
    case 2:
      return "cuda";
    case 3:
      return "cuda_host";
    case 4:
      return "opencl";
    case 7:
      return "vulkan";
    case 8:
      return "metal";
    case 9:
      return "vpi";
    case 10:
      return "rocm";
    case 13:
      return "cuda_managed";
    case 14:
      return "oneapi";
    default:
      return "unknown";
  }
}

bool to_scalar_type(DLDataType t, ScalarType* out) {
  if (t.lanes != 1) {
    return false;
  }
  switch (t.code) {
    case kDLInt:
      switch (t.bits) {
        case 8:
          *out = ScalarType::Char;
          return true;
        case 16:
          *out = ScalarType::Short;
          return true;
        case 32:
          *out = ScalarType::Int;
          return true;
        case 64:
          *out = ScalarType::Long;
          return true;
      }
      return false;
    case kDLUInt:
      switch (t.bits) {
        case 8:
          *out = ScalarType::Byte;
          return true;
        case 16:
          *out = ScalarType::UInt16;
          return true;
        case 32:
          *out = ScalarType::UInt32;
          return true;
        case 64:
          *out = ScalarType::UInt64;
          return true;
      }
      return false;
    case kDLFloat:
      switch (t.bits) {
        case 16:
          *out = ScalarType::Half;
          return true;
        case 32:
          *out = ScalarType::Float;
          return true;
        case 64:
          *out = ScalarType::Double;
          return true;
      }
      return false;
    case kDLBfloat:
      if (t.bits == 16) {
        *out = ScalarType::BFloat16;
        return true;
      }
      return false;
    case kDLComplex:
      switch (t.bits) {
        case 64:
          *out = ScalarType::ComplexFloat;
          return true;
        case 128:
          *out = ScalarType::ComplexDouble;
          return true;
      }
      return false;
    case kDLBool:
      if (t.bits == 8) {
        *out = ScalarType::Bool;
        return true;
      }
      return false;
  }
  return false;
}

// Copies a strided tensor into compact row-major order (strides in elements, may be
// negative or zero).
void strided_copy(uint8_t* dst, const uint8_t* src, const std::vector<int64_t>& shape,
                  const int64_t* strides, size_t elsize) {
  const size_t nd = shape.size();
  if (nd == 0) {
    std::memcpy(dst, src, elsize);
    return;
  }
  std::vector<int64_t> idx(nd, 0);
  size_t total = 1;
  for (int64_t s : shape)
    total *= static_cast<size_t>(s);
  for (size_t n = 0; n < total; ++n) {
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d)
      off += idx[d] * strides[d];
    std::memcpy(dst + n * elsize, src + off * static_cast<int64_t>(elsize), elsize);
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

}  // namespace

DLPackImport::~DLPackImport() {
  release();
}

void DLPackImport::release() {
  if (managed_ == nullptr) {
    return;
  }
  if (versioned_) {
    auto* m = static_cast<DLManagedTensorVersioned*>(managed_);
    if (m->deleter != nullptr)
      m->deleter(m);
  } else {
    auto* m = static_cast<DLManagedTensor*>(managed_);
    if (m->deleter != nullptr)
      m->deleter(m);
  }
  managed_ = nullptr;
}

void DLPackImport::import(const py::handle& obj, const std::string& where) {
  // Refuse non-CPU memory before asking for a capsule: dereferencing it would crash.
  if (py::hasattr(obj, "__dlpack_device__")) {
    py::tuple dev = obj.attr("__dlpack_device__")();
    int32_t type = dev.size() > 0 ? dev[0].cast<int32_t>() : -1;
    if (type != kDLCPU && type != kDLCUDAHost && type != kDLCUDAManaged) {
      throw py::type_error(where + ": expected a CPU tensor, got one on device '" +
                           device_name(type) + "' (type " + std::to_string(type) +
                           "); copy it to the CPU first");
    }
  }
  py::object capsule;
  try {
    py::tuple max_version = py::make_tuple(kDLPackMajor, 0);
    capsule = obj.attr("__dlpack__")(py::arg("max_version") = max_version);
  } catch (py::error_already_set& e) {
    // Producers older than DLPack 1.0 do not take max_version.
    if (!e.matches(PyExc_TypeError))
      throw;
    capsule = obj.attr("__dlpack__")();
  }
  if (!PyCapsule_CheckExact(capsule.ptr())) {
    throw py::type_error(where + ": __dlpack__() did not return a PyCapsule");
  }
  const char* name = PyCapsule_GetName(capsule.ptr());
  DLTensor* t = nullptr;
  if (name != nullptr && std::strcmp(name, "dltensor_versioned") == 0) {
    auto* m = static_cast<DLManagedTensorVersioned*>(
        PyCapsule_GetPointer(capsule.ptr(), "dltensor_versioned"));
    if (m == nullptr)
      throw py::error_already_set();
    if (m->version.major != kDLPackMajor) {
      // Per the protocol the consumer must not touch a tensor of an unknown major version
      // beyond the version field; leave the capsule to its own destructor.
      throw py::type_error(where + ": unsupported DLPack version " +
                           std::to_string(m->version.major) + "." +
                           std::to_string(m->version.minor));
    }
    if (PyCapsule_SetName(capsule.ptr(), "used_dltensor_versioned") != 0) {
      throw py::error_already_set();
    }
    managed_ = m;
    versioned_ = true;
    producer_read_only_ = (m->flags & kDLFlagReadOnly) != 0;
    t = &m->dl_tensor;
  } else if (name != nullptr && std::strcmp(name, "dltensor") == 0) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (m == nullptr)
      throw py::error_already_set();
    if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0) {
      throw py::error_already_set();
    }
    managed_ = m;
    versioned_ = false;
    producer_read_only_ = false;  // DLPack before 1.0 has no such flag
    t = &m->dl_tensor;
  } else {
    throw py::type_error(where + ": __dlpack__() returned a capsule named '" +
                         std::string(name ? name : "(null)") + "', not 'dltensor'");
  }

  if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost &&
      t->device.device_type != kDLCUDAManaged) {
    throw py::type_error(where + ": expected a CPU tensor, got one on device '" +
                         device_name(t->device.device_type) + "'");
  }
  if (!to_scalar_type(t->dtype, &dtype)) {
    throw py::type_error(where + ": DLPack dtype (code " + std::to_string(t->dtype.code) +
                         ", bits " + std::to_string(t->dtype.bits) + ", lanes " +
                         std::to_string(t->dtype.lanes) + ") has no runtime equivalent");
  }
  if (t->ndim < 0 || t->ndim > 16) {
    throw py::value_error(where + ": rank " + std::to_string(t->ndim) +
                          " exceeds the runtime's limit of 16");
  }
  shape.assign(t->shape, t->shape + t->ndim);
  size_t numel = 1;
  for (int64_t s : shape) {
    if (s < 0 || s > INT32_MAX) {
      throw py::value_error(where + ": dimension " + std::to_string(s) + " out of range");
    }
    if (s != 0 && numel > SIZE_MAX / static_cast<size_t>(s)) {
      throw py::value_error(where + ": the element count overflows");
    }
    numel *= static_cast<size_t>(s);
  }
  const size_t elsize = element_size(dtype);
  const uint8_t* base = static_cast<const uint8_t*>(t->data) + t->byte_offset;
  bool compact = true;
  if (t->strides != nullptr && numel > 1) {
    int64_t expect = 1;
    for (int32_t d = t->ndim; d-- > 0;) {
      if (shape[d] != 1 && t->strides[d] != expect) {
        compact = false;
        break;
      }
      expect *= shape[d];
    }
  }
  if (numel == 0) {
    data = base;
  } else if (compact && reinterpret_cast<uintptr_t>(base) % elsize == 0) {
    if (base == nullptr)
      throw py::value_error(where + ": DLPack tensor has no data");
    data = base;
  } else {
    // Strided or misaligned (kernels load whole elements): a compact, aligned copy.
    if (base == nullptr)
      throw py::value_error(where + ": DLPack tensor has no data");
    if (numel > SIZE_MAX / elsize) {
      throw py::value_error(where + ": the byte count overflows");
    }
    copy_.resize(numel * elsize);
    if (compact) {
      std::memcpy(copy_.data(), base, numel * elsize);
    } else {
      strided_copy(copy_.data(), base, shape, t->strides, elsize);
    }
    data = copy_.data();
  }
  // A copy is ours to write; the producer's memory is read-only if it says so.
  read_only = producer_read_only_ && data != copy_.data();
}

}  // namespace etpy
