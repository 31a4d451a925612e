// One call of a Method from Python: input validation and conversion (numpy arrays, Python
// scalars, __dlpack__ producers, array-likes), execution with the GIL released, and
// conversion of the outputs into numpy arrays that own their data.
#include "common.h"

#include <array>
#include <cstring>
#include <optional>
#include <sstream>

#include <pybind11/numpy.h>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

namespace etpy {

// ---- dtypes -------------------------------------------------------------------------------

const char* dtype_name(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
      return "uint8";
    case ScalarType::Char:
      return "int8";
    case ScalarType::Short:
      return "int16";
    case ScalarType::Int:
      return "int32";
    case ScalarType::Long:
      return "int64";
    case ScalarType::Half:
      return "float16";
    case ScalarType::Float:
      return "float32";
    case ScalarType::Double:
      return "float64";
    case ScalarType::ComplexHalf:
      return "complex32";
    case ScalarType::ComplexFloat:
      return "complex64";
    case ScalarType::ComplexDouble:
      return "complex128";
    case ScalarType::Bool:
      return "bool";
    case ScalarType::QInt8:
      return "qint8";
    case ScalarType::QUInt8:
      return "quint8";
    case ScalarType::QInt32:
      return "qint32";
    case ScalarType::BFloat16:
      return "bfloat16";
    case ScalarType::QUInt4x2:
      return "quint4x2";
    case ScalarType::QUInt2x4:
      return "quint2x4";
    case ScalarType::Bits1x8:
      return "bits1x8";
    case ScalarType::Bits2x4:
      return "bits2x4";
    case ScalarType::Bits4x2:
      return "bits4x2";
    case ScalarType::Bits8:
      return "bits8";
    case ScalarType::Bits16:
      return "bits16";
    case ScalarType::Float8_e5m2:
      return "float8_e5m2";
    case ScalarType::Float8_e4m3fn:
      return "float8_e4m3fn";
    case ScalarType::Float8_e5m2fnuz:
      return "float8_e5m2fnuz";
    case ScalarType::Float8_e4m3fnuz:
      return "float8_e4m3fnuz";
    case ScalarType::UInt16:
      return "uint16";
    case ScalarType::UInt32:
      return "uint32";
    case ScalarType::UInt64:
      return "uint64";
    default:
      return "undefined";
  }
}

int numpy_typenum(ScalarType t) {
  // NPY_TYPES values (stable numpy ABI); int64/uint64 are NPY_LONG/NPY_ULONG on LP64.
  switch (t) {
    case ScalarType::Bool:
      return 0;
    case ScalarType::Char:
      return 1;
    case ScalarType::Byte:
      return 2;
    case ScalarType::Short:
      return 3;
    case ScalarType::UInt16:
      return 4;
    case ScalarType::Int:
      return 5;
    case ScalarType::UInt32:
      return 6;
    case ScalarType::Long:
      return sizeof(long) == 8 ? 7 : 9;
    case ScalarType::UInt64:
      return sizeof(long) == 8 ? 8 : 10;
    case ScalarType::Float:
      return 11;
    case ScalarType::Double:
      return 12;
    case ScalarType::ComplexFloat:
      return 14;
    case ScalarType::ComplexDouble:
      return 15;
    case ScalarType::Half:
      return 23;
    default:
      return -1;
  }
}

py::object numpy_dtype(ScalarType t, const std::string& what) {
  const int typenum = numpy_typenum(t);
  if (typenum < 0) {
    fail(rt::Error::NotSupported,
         what + " has dtype " + dtype_name(t) + ", which numpy cannot represent");
  }
  return py::dtype(typenum);
}

size_t element_size(ScalarType t) {
  if (static_cast<int>(t) < 0 || t >= ScalarType::Undefined)
    return 0;
  return ::executorch::runtime::elementSize(t);
}

namespace {

// numpy dtype (kind, itemsize) -> ScalarType; false if the runtime has no such dtype.
bool from_numpy(char kind, ssize_t itemsize, ScalarType* out) {
  switch (kind) {
    case 'b':
      if (itemsize == 1) {
        *out = ScalarType::Bool;
        return true;
      }
      return false;
    case 'i':
      switch (itemsize) {
        case 1:
          *out = ScalarType::Char;
          return true;
        case 2:
          *out = ScalarType::Short;
          return true;
        case 4:
          *out = ScalarType::Int;
          return true;
        case 8:
          *out = ScalarType::Long;
          return true;
      }
      return false;
    case 'u':
      switch (itemsize) {
        case 1:
          *out = ScalarType::Byte;
          return true;
        case 2:
          *out = ScalarType::UInt16;
          return true;
        case 4:
          *out = ScalarType::UInt32;
          return true;
        case 8:
          *out = ScalarType::UInt64;
          return true;
      }
      return false;
    case 'f':
      switch (itemsize) {
        case 2:
          *out = ScalarType::Half;
          return true;
        case 4:
          *out = ScalarType::Float;
          return true;
        case 8:
          *out = ScalarType::Double;
          return true;
      }
      return false;
    case 'c':
      switch (itemsize) {
        case 8:
          *out = ScalarType::ComplexFloat;
          return true;
        case 16:
          *out = ScalarType::ComplexDouble;
          return true;
      }
      return false;
  }
  return false;
}

template <typename T>
std::string shape_str(const T* s, size_t n) {
  std::ostringstream os;
  os << '(';
  for (size_t i = 0; i < n; ++i) {
    os << (i ? ", " : "") << s[i];
  }
  if (n == 1)
    os << ',';
  os << ')';
  return os.str();
}

std::string type_name(const py::handle& obj) {
  return Py_TYPE(obj.ptr())->tp_name;
}

bool is_numpy_bool_scalar(const py::handle& obj) {
  const char* n = Py_TYPE(obj.ptr())->tp_name;
  return std::strcmp(n, "numpy.bool") == 0 || std::strcmp(n, "numpy.bool_") == 0;
}

// One converted input. Not movable: the TensorImpl points into its own arrays.
struct Prepared {
  rt::EValue value;
  std::array<int32_t, 16> sizes{};
  std::array<uint8_t, 16> dim_order{};
  std::array<int32_t, 16> strides{};
  std::unique_ptr<::executorch::aten::TensorImpl> impl;
  py::object keep;  // the numpy array whose memory the tensor uses
  DLPackImport dl;
  ::executorch::aten::ArrayRef<char> str;
  std::string str_storage;
};

void make_tensor(Prepared& p, const SlotInfo& slot, size_t idx, ScalarType given,
                 const int64_t* shape, size_t ndim, const void* data) {
  const std::string where = "input " + std::to_string(idx);
  if (given != slot.dtype) {
    throw py::type_error(where + ": expected dtype " + dtype_name(slot.dtype) + ", got " +
                         dtype_name(given));
  }
  if (ndim != slot.sizes.size()) {
    throw py::value_error(where + ": expected rank " + std::to_string(slot.sizes.size()) +
                          " (shape " + shape_str(slot.sizes.data(), slot.sizes.size()) +
                          "), got rank " + std::to_string(ndim) + " (shape " +
                          shape_str(shape, ndim) + ")");
  }
  size_t numel = 1;
  for (size_t d = 0; d < ndim; ++d) {
    if (shape[d] < 0 || shape[d] > INT32_MAX) {
      throw py::value_error(where + ": dimension " + std::to_string(shape[d]) + " out of range");
    }
    numel *= static_cast<size_t>(shape[d]);
  }
  const size_t nbytes = numel * element_size(given);
  if (nbytes > slot.nbytes) {
    throw py::value_error(where + ": shape " + shape_str(shape, ndim) + " exceeds the bound " +
                          shape_str(slot.sizes.data(), slot.sizes.size()) + " of this input");
  }
  int64_t stride = 1;
  for (size_t d = ndim; d-- > 0;) {
    p.sizes[d] = static_cast<int32_t>(shape[d]);
    p.dim_order[d] = static_cast<uint8_t>(d);
    p.strides[d] = static_cast<int32_t>(stride);
    stride *= shape[d] > 0 ? shape[d] : 1;
    if (stride > INT32_MAX) {
      throw py::value_error(where + ": shape " + shape_str(shape, ndim) +
                            " has too many elements for the runtime");
    }
  }
  p.impl.reset(new ::executorch::aten::TensorImpl(given, static_cast<ssize_t>(ndim), p.sizes.data(),
                                                  const_cast<void*>(data), p.dim_order.data(),
                                                  p.strides.data()));
  p.value = rt::EValue(::executorch::aten::Tensor(p.impl.get()));
}

// Read-only memory is bound without a copy when the method only reads it; one the method
// writes in place is refused before anything runs (a copy would hide the write).
void refuse_read_only(const SlotInfo& slot, size_t idx) {
  if (slot.written_in_place) {
    throw py::value_error("input " + std::to_string(idx) +
                          ": the method writes this input in place, and the given array is "
                          "read-only; pass a writable array (for example a copy)");
  }
}

void from_array(Prepared& p, const SlotInfo& slot, size_t idx, py::array arr) {
  py::dtype dt = arr.dtype();
  ScalarType given;
  if (!from_numpy(dt.kind(), dt.itemsize(), &given)) {
    throw py::type_error("input " + std::to_string(idx) + ": expected dtype " +
                         dtype_name(slot.dtype) + ", got " +
                         py::str(static_cast<py::object>(dt)).cast<std::string>());
  }
  const char order = dt.byteorder();
  if (order == '>') {
    throw py::type_error("input " + std::to_string(idx) + ": expected dtype " +
                         dtype_name(slot.dtype) + " in native byte order, got a big-endian array");
  }
  constexpr int kNeed =
      py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if ((py::detail::array_proxy(arr.ptr())->flags & kNeed) != kNeed) {
    // Documented behaviour: non-contiguous, Fortran-order, negatively strided and
    // misaligned arrays are accepted through a contiguous, aligned copy. (np.require
    // with both requirements: ascontiguousarray alone returns a contiguous but
    // misaligned array unchanged, and kernels load whole elements.)
    arr = py::module_::import("numpy").attr("require")(arr, py::arg("requirements") = "CA");
  }
  const ssize_t ndim = arr.ndim();
  std::array<int64_t, 32> shape{};
  if (ndim > 32) {
    throw py::value_error("input " + std::to_string(idx) + ": expected rank " +
                          std::to_string(slot.sizes.size()) + ", got rank " + std::to_string(ndim));
  }
  for (ssize_t d = 0; d < ndim; ++d)
    shape[d] = arr.shape(d);
  if (!arr.writeable()) {
    refuse_read_only(slot, idx);
  }
  make_tensor(p, slot, idx, given, shape.data(), static_cast<size_t>(ndim), arr.data());
  p.keep = std::move(arr);
}

void prepare_tensor(Prepared& p, const SlotInfo& slot, size_t idx, const py::handle& obj) {
  if (py::isinstance<py::array>(obj)) {
    from_array(p, slot, idx, py::reinterpret_borrow<py::array>(obj));
    return;
  }
  if (PyObject_HasAttrString(obj.ptr(), "__dlpack__")) {
    p.dl.import(obj, "input " + std::to_string(idx));
    if (p.dl.read_only) {
      refuse_read_only(slot, idx);
    }
    make_tensor(p, slot, idx, p.dl.dtype, p.dl.shape.data(), p.dl.shape.size(), p.dl.data);
    return;
  }
  py::module_ np = py::module_::import("numpy");
  if (PyBool_Check(obj.ptr()) || PyLong_Check(obj.ptr()) || PyFloat_Check(obj.ptr())) {
    // A Python scalar stands for a 0-d tensor of the expected dtype, if its kind fits.
    const bool is_bool = PyBool_Check(obj.ptr());
    const bool is_int = !is_bool && PyLong_Check(obj.ptr());
    const ScalarType e = slot.dtype;
    const bool fits = !slot.sizes.empty()                               ? false
                      : e == ScalarType::Bool                           ? is_bool
                      : ::executorch::runtime::isFloatingType(e)        ? !is_bool
                      : ::executorch::runtime::isIntegralType(e, false) ? is_int
                                                                        : false;
    if (!fits) {
      throw py::type_error("input " + std::to_string(idx) + ": expected a tensor of dtype " +
                           dtype_name(e) + " and shape " +
                           shape_str(slot.sizes.data(), slot.sizes.size()) + ", got " +
                           type_name(obj));
    }
    from_array(p, slot, idx, np.attr("asarray")(obj, py::arg("dtype") = dtype_name(e)));
    return;
  }
  if (obj.is_none() || PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr()) ||
      PyDict_Check(obj.ptr())) {
    throw py::type_error("input " + std::to_string(idx) + ": expected a tensor of dtype " +
                         dtype_name(slot.dtype) + " and shape " +
                         shape_str(slot.sizes.data(), slot.sizes.size()) + ", got " +
                         type_name(obj));
  }
  // Array-likes (lists, __array__ objects): numpy decides; its exceptions propagate.
  from_array(p, slot, idx, np.attr("asarray")(obj));
}

void prepare(Prepared& p, const SlotInfo& slot, size_t idx, const py::handle& obj) {
  const std::string where = "input " + std::to_string(idx);
  PyObject* o = obj.ptr();
  switch (slot.tag) {
    case rt::Tag::Tensor:
      prepare_tensor(p, slot, idx, obj);
      return;
    case rt::Tag::Int: {
      if (PyBool_Check(o) || is_numpy_bool_scalar(obj) || !PyIndex_Check(o) || PyFloat_Check(o)) {
        throw py::type_error(where + ": expected an int, got " + type_name(obj));
      }
      py::object v = py::reinterpret_steal<py::object>(PyNumber_Index(o));
      if (!v)
        throw py::error_already_set();
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
      if (overflow != 0) {
        throw py::value_error(where + ": int value out of the int64 range");
      }
      if (x == -1 && PyErr_Occurred())
        throw py::error_already_set();
      p.value = rt::EValue(static_cast<int64_t>(x));
      return;
    }
    case rt::Tag::Double: {
      if (PyBool_Check(o) || is_numpy_bool_scalar(obj) || PyComplex_Check(o) ||
          !(PyFloat_Check(o) || PyLong_Check(o) ||
            (PyNumber_Check(o) && !py::isinstance<py::array>(obj)))) {
        throw py::type_error(where + ": expected a float, got " + type_name(obj));
      }
      double x = PyFloat_AsDouble(o);
      if (x == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        throw py::type_error(where + ": expected a float, got " + type_name(obj));
      }
      p.value = rt::EValue(x);
      return;
    }
    case rt::Tag::Bool:
      if (!PyBool_Check(o) && !is_numpy_bool_scalar(obj)) {
        throw py::type_error(where + ": expected a bool, got " + type_name(obj));
      }
      p.value = rt::EValue(PyObject_IsTrue(o) == 1);
      return;
    case rt::Tag::None:
      if (!obj.is_none()) {
        throw py::type_error(where + ": expected None, got " + type_name(obj));
      }
      p.value = rt::EValue();
      return;
    case rt::Tag::String:
      if (!PyUnicode_Check(o)) {
        throw py::type_error(where + ": expected a str, got " + type_name(obj));
      }
      p.str_storage = obj.cast<std::string>();
      p.str = ::executorch::aten::ArrayRef<char>(p.str_storage.data(), p.str_storage.size());
      p.value = rt::EValue(&p.str);
      return;
    default:
      throw py::type_error(where + ": inputs of kind " + rt::tag_to_string(slot.tag) +
                           " cannot be passed from Python");
  }
}

// The value a prim input was fixed to at export, for error messages.
std::string fixed_value(MethodState& st, size_t idx) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const rt::EValue& v = st.method->get_input(idx);
#pragma GCC diagnostic pop
  if (v.isInt())
    return std::to_string(v.toInt());
  if (v.isBool())
    return v.toBool() ? "True" : "False";
  if (v.isDouble()) {
    std::ostringstream os;
    os << v.toDouble();
    return os.str();
  }
  if (v.isString())
    return "'" + std::string(v.toString()) + "'";
  return "?";
}

// Raises the error for input `i`, which set_input refused with `err` (`detail`: the runtime's
// log lines; `fixed`: fixed_value() of the input). Called with the GIL and without the
// Method's lock.
[[noreturn]] void raise_refused_input(const MethodState& st, size_t i, rt::Error err,
                                      const std::string& detail, const std::string& fixed,
                                      const Prepared& prepared, const py::handle& given) {
  const SlotInfo& slot = st.inputs[i];
  const std::string where = "input " + std::to_string(i);
  if (slot.tag == rt::Tag::Tensor) {
    const auto* impl = prepared.impl.get();
    throw py::value_error(where + ": expected shape " +
                          shape_str(slot.sizes.data(), slot.sizes.size()) +
                          " (or one within its dynamic bound), got shape " +
                          shape_str(impl->sizes().data(), impl->sizes().size()) + " (" +
                          rt::to_string(err) + (detail.empty() ? "" : ": " + detail) + ")");
  }
  if (slot.tag == rt::Tag::Int || slot.tag == rt::Tag::Double || slot.tag == rt::Tag::Bool ||
      slot.tag == rt::Tag::String) {
    throw py::value_error(where + ": this input was fixed at export to " + fixed + ", got " +
                          py::repr(given).cast<std::string>());
  }
  fail(err, "set_input(" + std::to_string(i) + ") of method '" + st.name + "'", detail);
}

}  // namespace

py::object tensor_to_numpy(const ::executorch::aten::Tensor& t, size_t idx) {
  const py::dtype dtype(numpy_dtype(t.scalar_type(), "output " + std::to_string(idx)));
  const ssize_t ndim = t.dim();
  std::vector<ssize_t> shape(static_cast<size_t>(ndim));
  std::vector<ssize_t> strides(static_cast<size_t>(ndim));
  const ssize_t elsize = t.element_size();
  bool contiguous = true;
  for (ssize_t d = 0; d < ndim; ++d) {
    shape[d] = t.sizes()[d];
    strides[d] = static_cast<ssize_t>(t.strides()[d]) * elsize;
    if (t.dim_order()[d] != d)
      contiguous = false;
  }
  py::array arr = contiguous ? py::array(dtype, shape) : py::array(dtype, shape, strides);
  const size_t n = t.nbytes();
  if (n > 0 && t.const_data_ptr() != nullptr) {
    std::memcpy(arr.mutable_data(), t.const_data_ptr(), n);
  }
  return std::move(arr);
}

namespace {

py::object output_to_python(const rt::EValue& v, size_t idx) {
  switch (v.tag) {
    case rt::Tag::Tensor:
      return tensor_to_numpy(v.toTensor(), idx);
    case rt::Tag::Int:
      return py::int_(v.toInt());
    case rt::Tag::Double:
      return py::float_(v.toDouble());
    case rt::Tag::Bool:
      return py::bool_(v.toBool());
    case rt::Tag::None:
      return py::none();
    case rt::Tag::String: {
      std::string_view s = v.toString();
      return py::str(s.data(), s.size());
    }
    case rt::Tag::ListInt: {
      py::list l;
      for (int64_t x : v.toIntList())
        l.append(py::int_(x));
      return std::move(l);
    }
    case rt::Tag::ListDouble: {
      py::list l;
      for (double x : v.toDoubleList())
        l.append(py::float_(x));
      return std::move(l);
    }
    case rt::Tag::ListBool: {
      py::list l;
      for (bool x : v.toBoolList())
        l.append(py::bool_(x));
      return std::move(l);
    }
    case rt::Tag::ListTensor: {
      py::list l;
      for (const auto& t : v.toTensorList())
        l.append(tensor_to_numpy(t, idx));
      return std::move(l);
    }
    default:
      fail(rt::Error::NotSupported, "output " + std::to_string(idx) + " of kind " +
                                        rt::tag_to_string(v.tag) + " cannot be returned to Python");
  }
}

}  // namespace

py::object fixed_input(MethodState& st, size_t idx) {
  if (idx >= st.inputs.size()) {
    throw py::index_error("input index " + std::to_string(idx) + " out of range");
  }
  if (st.inputs[idx].tag == rt::Tag::Tensor) {
    return py::none();
  }
  rt::EValue v;
  {
    MethodLock lock(st.mu);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    v = st.method->get_input(idx);
#pragma GCC diagnostic pop
  }
  return output_to_python(v, idx);
}

py::list run_method(MethodState& st, const py::handle& inputs) {
  if (PyDict_Check(inputs.ptr()) || PyUnicode_Check(inputs.ptr()) || PyBytes_Check(inputs.ptr()) ||
      !PySequence_Check(inputs.ptr())) {
    throw py::type_error("inputs must be a list or tuple of values, got " + type_name(inputs));
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(inputs);
  const size_t n = seq.size();
  const size_t expected = st.inputs.size();
  if (n != expected) {
    throw py::value_error("method '" + st.name + "' takes " + std::to_string(expected) + " input" +
                          (expected == 1 ? "" : "s") + ", got " + std::to_string(n));
  }
  std::unique_ptr<Prepared[]> prepared(new Prepared[n]);
  for (size_t i = 0; i < n; ++i) {
    prepare(prepared[i], st.inputs[i], i, seq[i]);
  }

  py::list result;
  // Set when an input is refused; the error is raised once the lock is released, as building
  // its message runs Python code (the argument's repr).
  std::optional<size_t> refused;
  rt::Error refused_err = rt::Error::Ok;
  std::string refused_detail;
  std::string refused_fixed;
  {
    MethodLock lock(st.mu);
    LogCapture log;
    for (size_t i = 0; i < n && !refused; ++i) {
      rt::Error err = st.method->set_input(prepared[i].value, i);
      if (err != rt::Error::Ok) {
        refused = i;
        refused_err = err;
        refused_detail = log.text();
        // The fixed value is the Method's own: read while the lock is held.
        refused_fixed = fixed_value(st, i);
      }
    }
    if (!refused) {
      rt::Error err = st.method->execute();
      if (err != rt::Error::Ok) {
        fail(err, "executing method '" + st.name + "'", &log);
      }
      const size_t nout = st.method->outputs_size();
      std::vector<rt::EValue> outs(nout);
      // A method without outputs has nothing to read (and get_outputs refuses
      // the null array an empty vector gives).
      err = nout == 0 ? rt::Error::Ok : st.method->get_outputs(outs.data(), nout);
      if (err != rt::Error::Ok) {
        fail(err, "reading the outputs of method '" + st.name + "'", &log);
      }
      // The outputs alias the Method's memory, which the next call overwrites: they are copied
      // into numpy arrays before the lock is released, so this is where the GIL is needed.
      py::gil_scoped_acquire gil;
      for (size_t i = 0; i < nout; ++i) {
        result.append(output_to_python(outs[i], i));
      }
    }
  }
  if (refused) {
    raise_refused_input(st, *refused, refused_err, refused_detail, refused_fixed,
                        prepared[*refused], seq[*refused]);
  }
  return result;
}

}  // namespace etpy
