// load(), Program, Method, MethodMeta and TensorInfo. Loading and method loading run with
// the GIL released; a Method keeps its Program (and the program's bytes or mapping) alive.
#include "common.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pybind11/native_enum.h>
#include <pybind11/stl.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/module/memory_limit.h>

namespace etpy {
namespace {

using ::executorch::extension::BufferDataLoader;
using ::executorch::extension::FlatTensorDataMap;
using ::executorch::extension::MmapDataLoader;
using Verification = rt::Program::Verification;

// The public description of one input/output slot.
struct TensorInfo {
  std::string kind;  // "Tensor", "Int", "Double", "Bool", "None", "String", ...
  SlotInfo slot;
  std::string name;
};

struct MethodMetaView {
  std::shared_ptr<ProgramState> keep;
  rt::MethodMeta meta;
};

// A slot's kind and, for a tensor (`t` non-null), its dtype, shape, dim order and size.
TensorInfo describe(rt::Tag tag, const rt::TensorInfo* t) {
  TensorInfo info;
  char buf[rt::kTagNameBufferSize];
  rt::tag_to_string(tag, buf, sizeof(buf));
  info.kind = buf;
  info.slot.tag = tag;
  if (t != nullptr) {
    info.slot.dtype = t->scalar_type();
    info.slot.sizes.assign(t->sizes().begin(), t->sizes().end());
    info.slot.dim_order.assign(t->dim_order().begin(), t->dim_order().end());
    info.slot.nbytes = t->nbytes();
    info.slot.memory_planned = t->is_memory_planned();
    info.name = std::string(t->name());
  }
  return info;
}

enum class Io { Input, Output };

// Input or output `i` of a method; a slot whose metadata the runtime rejects raises
// executorch_runtime.Error instead of being described as None.
TensorInfo describe_slot(const rt::MethodMeta& m, Io io, size_t i) {
  const bool input = io == Io::Input;
  const std::string what = std::string(input ? "input " : "output ") + std::to_string(i) +
                           " of method '" + m.name() + "'";
  const rt::Tag tag =
      value_or_raise([&] { return input ? m.input_tag(i) : m.output_tag(i); }, what);
  if (tag != rt::Tag::Tensor) {
    return describe(tag, nullptr);
  }
  const rt::TensorInfo t = value_or_raise(
      [&] { return input ? m.input_tensor_meta(i) : m.output_tensor_meta(i); }, what);
  return describe(tag, &t);
}

std::vector<TensorInfo> describe_slots(const rt::MethodMeta& m, Io io) {
  const size_t n = io == Io::Input ? m.num_inputs() : m.num_outputs();
  std::vector<TensorInfo> v;
  for (size_t i = 0; i < n; ++i) {
    v.push_back(describe_slot(m, io, i));
  }
  return v;
}

// The verification level is spelled one way: a Verification member. Strings and plain ints are
// refused rather than mapped, so there is one name per level in code, docs and error messages.
Verification parse_verification(const py::handle& v) {
  const py::type enum_type = py::type::of(py::cast(Verification::Minimal));
  if (!py::isinstance(v, enum_type)) {
    throw py::type_error(
        "verification must be executorch_runtime.Verification.Minimal or "
        ".InternalConsistency, got " +
        py::repr(v).cast<std::string>() + " (" + Py_TYPE(v.ptr())->tp_name + ")");
  }
  return v.cast<Verification>();
}

// Raises the matching OSError subclass (FileNotFoundError, PermissionError,
// IsADirectoryError, ...) if `path` cannot be opened as a regular file.
void check_readable_file(const std::string& path, const py::handle& path_obj) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  int err = 0;
  if (fd < 0) {
    err = errno;
  } else {
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      err = errno;
    } else if (S_ISDIR(st.st_mode)) {
      err = EISDIR;
    }
    ::close(fd);
  }
  if (err != 0) {
    errno = err;
    PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_obj.ptr());
    throw py::error_already_set();
  }
}

std::unique_ptr<rt::DataLoader> mmap_loader(const std::string& path, const char* what) {
  LogCapture log;
  auto loader = MmapDataLoader::from(path.c_str(), MmapDataLoader::MlockConfig::NoMlock);
  if (!loader.ok()) {
    py::gil_scoped_acquire gil;
    fail(loader.error(), std::string("mapping ") + what + " '" + path + "'", &log);
  }
  return std::make_unique<MmapDataLoader>(std::move(loader.get()));
}

std::shared_ptr<ProgramState> load(const py::object& source, const py::object& verification,
                                   const py::object& data_path) {
  const Verification level = parse_verification(verification);
  auto state = std::make_shared<ProgramState>();
  std::string path;
  bool from_path = false;
  if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__")) {
    py::object p = py::module_::import("os").attr("fspath")(source);
    if (!py::isinstance<py::str>(p)) {
      throw py::type_error("load() takes a str path; os.fspath() gave " +
                           std::string(Py_TYPE(p.ptr())->tp_name));
    }
    path = p.cast<std::string>();
    check_readable_file(path, p);
    from_path = true;
    state->origin = path;
  } else if (PyObject_CheckBuffer(source.ptr())) {
    // A private aligned copy: the caller may mutate or free its buffer after load().
    Py_buffer view;
    if (PyObject_GetBuffer(source.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
      throw py::error_already_set();
    }
    const size_t size = static_cast<size_t>(view.len);
    const size_t padded = (size + 63) / 64 * 64 + 64;
    void* mem = std::aligned_alloc(64, padded);
    if (mem == nullptr) {
      PyBuffer_Release(&view);
      throw std::bad_alloc();
    }
    std::memcpy(mem, view.buf, size);
    PyBuffer_Release(&view);
    state->bytes =
        std::unique_ptr<uint8_t, void (*)(void*)>(static_cast<uint8_t*>(mem), &std::free);
    state->loader = std::make_unique<BufferDataLoader>(mem, size);
    state->origin = "<bytes>";
  } else {
    throw py::type_error("load() takes a path (str or os.PathLike) or a bytes-like object, got " +
                         std::string(Py_TYPE(source.ptr())->tp_name));
  }
  std::string dpath;
  if (!data_path.is_none()) {
    py::object p = py::module_::import("os").attr("fspath")(data_path);
    dpath = p.cast<std::string>();
    check_readable_file(dpath, p);
  }

  py::gil_scoped_release nogil;
  if (from_path) {
    state->loader = mmap_loader(path, "program");
  }
  {
    LogCapture log;
    auto program = rt::Program::load(state->loader.get(), level);
    if (!program.ok()) {
      py::gil_scoped_acquire gil;
      fail(program.error(), "loading program '" + state->origin + "'", &log);
    }
    state->program = std::make_unique<rt::Program>(std::move(program.get()));
  }
  if (!dpath.empty()) {
    state->data_loader = mmap_loader(dpath, "data file");
    LogCapture log;
    auto map = FlatTensorDataMap::load(state->data_loader.get());
    if (!map.ok()) {
      py::gil_scoped_acquire gil;
      fail(map.error(), "loading data file '" + dpath + "'", &log);
    }
    state->data_map = std::make_unique<FlatTensorDataMap>(std::move(map.get()));
  }
  return state;
}

std::vector<std::string> method_names(const ProgramState& p) {
  std::vector<std::string> names;
  for (size_t i = 0; i < p.program->num_methods(); ++i) {
    names.emplace_back(value_or_raise([&] { return p.program->get_method_name(i); },
                                      "name of method " + std::to_string(i)));
  }
  return names;
}

[[noreturn]] void no_such_method(const ProgramState& p, const std::string& name) {
  std::string known;
  for (const auto& n : method_names(p))
    known += (known.empty() ? "" : ", ") + n;
  throw py::key_error("no method named '" + name + "' in program '" + p.origin +
                      "' (methods: " + known + ")");
}

rt::MethodMeta get_meta(const ProgramState& p, const std::string& name) {
  auto meta = p.program->method_meta(name.c_str());
  if (!meta.ok()) {
    if (meta.error() == rt::Error::InvalidArgument || meta.error() == rt::Error::NotFound) {
      no_such_method(p, name);
    }
    fail(meta.error(), "method_meta('" + name + "')");
  }
  return meta.get();
}

// Allocates `nbytes` (64-byte aligned) for `what` after reserving them in `budget`. Called
// without the GIL; takes it to raise executorch_runtime.Error(MemoryAllocationFailed).
void* allocate_within(MethodState& st, ::executorch::extension::MemoryBudget& budget, size_t nbytes,
                      const std::string& what, const LogCapture& log) {
  const rt::Error err = budget.reserve(nbytes, what.c_str());
  void* buf = err == rt::Error::Ok ? st.buffer_allocator.allocate(nbytes, 64) : nullptr;
  if (buf == nullptr) {
    py::gil_scoped_acquire gil;
    fail(rt::Error::MemoryAllocationFailed, "allocating storage for " + what, &log);
  }
  return buf;
}

std::shared_ptr<MethodState> load_method(const std::shared_ptr<ProgramState>& p,
                                         const std::string& name, bool profile,
                                         const py::object& max_memory, bool etdump,
                                         const py::object& debug_buffer_size, bool prepare) {
  rt::MethodMeta meta = get_meta(*p, name);
  uint64_t limit = ::executorch::extension::default_max_memory();
  if (!max_memory.is_none()) {
    // Any integer (an int, numpy.int64, ...); bool is an int but surely a mistake here.
    PyObject* index = PyBool_Check(max_memory.ptr()) ? nullptr : PyNumber_Index(max_memory.ptr());
    if (index == nullptr) {
      PyErr_Clear();
      throw py::type_error("max_memory must be an int (bytes) or None, got " +
                           std::string(Py_TYPE(max_memory.ptr())->tp_name));
    }
    const unsigned long long v = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      throw py::value_error("max_memory must be between 0 and 2**64 - 1 bytes, got " +
                            py::repr(max_memory).cast<std::string>());
    }
    limit = v;
  }
  // Everything sized from the program (planned buffers, storage of unplanned outputs) is
  // reserved here before it is allocated.
  ::executorch::extension::MemoryBudget budget(limit, "raise it with load_method(max_memory=...)");
  auto st = std::make_shared<MethodState>();
  st->program = p;
  st->name = name;
  if (profile) {
    st->profiler = std::make_unique<OpProfiler>();
  }
  setup_etdump(*st, etdump, debug_buffer_size, profile);
  rt::EventTracer* tracer =
      st->profiler ? static_cast<rt::EventTracer*>(st->profiler.get()) : st->etdump.get();
  {
    py::gil_scoped_release nogil;
    LogCapture log;
    const std::string what = "method '" + name + "'";
    const rt::Error planned_err =
        budget.reserve_planned(meta, (what + ": planned buffers").c_str());
    if (planned_err != rt::Error::Ok) {
      py::gil_scoped_acquire gil;
      fail(planned_err, "allocating the planned buffers of " + what, &log);
    }
    const size_t nplanned = meta.num_memory_planned_buffers();
    for (size_t i = 0; i < nplanned; ++i) {
      // reserve_planned() checked each size (non-negative, within the limit).
      const size_t size = static_cast<size_t>(meta.memory_planned_buffer_size(i).get());
      void* buf = st->buffer_allocator.allocate(size, 64);
      if (buf == nullptr) {
        py::gil_scoped_acquire gil;
        fail(rt::Error::MemoryAllocationFailed,
             "allocating planned buffer " + std::to_string(i) + " of " + what, &log);
      }
      st->planned_spans.emplace_back(static_cast<uint8_t*>(buf), size);
    }
    st->planned = std::make_unique<rt::HierarchicalAllocator>(
        rt::Span<rt::Span<uint8_t>>(st->planned_spans.data(), st->planned_spans.size()));
    st->memory_manager =
        std::make_unique<rt::MemoryManager>(&st->method_allocator, st->planned.get());
    rt::MethodLoadConfig config;
    config.prepare_constants = prepare;
    auto method = p->program->load_method(name.c_str(), st->memory_manager.get(), config, tracer,
                                          p->data_map.get());
    if (!method.ok()) {
      py::gil_scoped_acquire gil;
      fail(method.error(), "loading method '" + name + "'", &log);
    }
    st->method = std::make_unique<rt::Method>(std::move(method.get()));
    for (size_t i = 0; i < meta.num_inputs(); ++i) {
      st->inputs.push_back(describe_slot(meta, Io::Input, i).slot);
      st->inputs.back().written_in_place = st->method->input_is_written(i);
    }
    for (size_t i = 0; i < meta.num_outputs(); ++i) {
      SlotInfo s = describe_slot(meta, Io::Output, i).slot;
      if (s.tag == rt::Tag::Tensor && !s.memory_planned) {
        // Outputs without planned storage get a buffer of their bound size. An output the
        // runtime refuses (it aliases an input or a constant) keeps its own storage.
        void* buf =
            allocate_within(*st, budget, s.nbytes, what + ": output " + std::to_string(i), log);
        LogCapture quiet;
        (void)st->method->set_output_data_ptr(buf, s.nbytes, i);
      }
      st->outputs.push_back(std::move(s));
    }
  }
  return st;
}

py::tuple to_tuple(const std::vector<int32_t>& v) {
  py::tuple t(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    t[i] = py::int_(v[i]);
  return t;
}

py::tuple to_tuple(const std::vector<uint8_t>& v) {
  py::tuple t(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    t[i] = py::int_(v[i]);
  return t;
}

std::string info_repr(const TensorInfo& t) {
  if (t.kind != "Tensor")
    return "TensorInfo(kind='" + t.kind + "')";
  std::string shape = py::repr(to_tuple(t.slot.sizes)).cast<std::string>();
  return "TensorInfo(kind='Tensor', dtype=" + std::string(dtype_name(t.slot.dtype)) +
         ", shape=" + shape + ", nbytes=" + std::to_string(t.slot.nbytes) +
         ", memory_planned=" + (t.slot.memory_planned ? "True" : "False") + ")";
}

}  // namespace

void bind_program(py::module_& m) {
  py::native_enum<Verification>(m, "Verification", "enum.IntEnum",
                                "How thoroughly load() checks a program.")
      .value("Minimal", Verification::Minimal)
      .value("InternalConsistency", Verification::InternalConsistency)
      .finalize();

  py::class_<TensorInfo>(m, "TensorInfo",
                         "One input or output of a method: its kind and, for tensors, "
                         "dtype, shape (the upper bound for dynamic shapes), dim order, "
                         "size in bytes and whether the program planned its memory.")
      .def_property_readonly("kind", [](const TensorInfo& t) { return t.kind; })
      .def_property_readonly(
          "dtype",
          [](const TensorInfo& t) -> py::object {
            if (t.kind != "Tensor")
              return py::none();
            return numpy_dtype(t.slot.dtype,
                               t.name.empty() ? "this tensor" : "tensor '" + t.name + "'");
          },
          "numpy.dtype of a tensor (None for other kinds); "
          "executorch_runtime.Error (NotSupported) for a dtype numpy lacks, "
          "such as bfloat16: scalar_type has it.")
      .def_property_readonly(
          "scalar_type",
          [](const TensorInfo& t) -> py::object {
            if (t.kind != "Tensor")
              return py::none();
            return py::int_(static_cast<int>(t.slot.dtype));
          },
          "The runtime's ScalarType of a tensor as an int (6 is Float; None "
          "for other kinds), defined for every dtype.")
      .def_property_readonly("shape", [](const TensorInfo& t) { return to_tuple(t.slot.sizes); })
      .def_property_readonly("dim_order",
                             [](const TensorInfo& t) { return to_tuple(t.slot.dim_order); })
      .def_property_readonly("nbytes", [](const TensorInfo& t) { return t.slot.nbytes; })
      .def_property_readonly("memory_planned",
                             [](const TensorInfo& t) { return t.slot.memory_planned; })
      .def_property_readonly("name", [](const TensorInfo& t) { return t.name; })
      .def("__repr__", &info_repr);

  py::class_<MethodMetaView>(m, "MethodMeta",
                             "What a method takes and returns, and the "
                             "memory it plans; available without loading it.")
      .def_property_readonly("name",
                             [](const MethodMetaView& v) { return std::string(v.meta.name()); })
      .def_property_readonly(
          "inputs", [](const MethodMetaView& v) { return describe_slots(v.meta, Io::Input); })
      .def_property_readonly(
          "outputs", [](const MethodMetaView& v) { return describe_slots(v.meta, Io::Output); })
      .def_property_readonly("attributes",
                             [](const MethodMetaView& v) {
                               std::vector<TensorInfo> a;
                               for (size_t i = 0; i < v.meta.num_attributes(); ++i) {
                                 const rt::TensorInfo t =
                                     value_or_raise([&] { return v.meta.attribute_tensor_meta(i); },
                                                    "attribute " + std::to_string(i) +
                                                        " of method '" + v.meta.name() + "'");
                                 a.push_back(describe(rt::Tag::Tensor, &t));
                               }
                               return a;
                             })
      .def_property_readonly(
          "planned_buffer_sizes",
          [](const MethodMetaView& v) {
            std::vector<int64_t> s;
            for (size_t i = 0; i < v.meta.num_memory_planned_buffers(); ++i) {
              s.push_back(value_or_raise([&] { return v.meta.memory_planned_buffer_size(i); },
                                         "size of planned buffer " + std::to_string(i) +
                                             " of method '" + v.meta.name() + "'"));
            }
            return py::tuple(py::cast(s));
          })
      .def_property_readonly(
          "backends",
          [](const MethodMetaView& v) {
            std::vector<std::string> b;
            for (size_t i = 0; i < v.meta.num_backends(); ++i) {
              b.emplace_back(value_or_raise(
                  [&] { return v.meta.get_backend_name(i); },
                  "backend " + std::to_string(i) + " of method '" + v.meta.name() + "'"));
            }
            return b;
          })
      .def_property_readonly("num_instructions",
                             [](const MethodMetaView& v) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
                               return v.meta.num_instructions();
#pragma GCC diagnostic pop
                             })
      .def("__repr__", [](const MethodMetaView& v) {
        std::string s = "MethodMeta(name='" + std::string(v.meta.name()) + "', inputs=[";
        auto in = describe_slots(v.meta, Io::Input);
        for (size_t i = 0; i < in.size(); ++i)
          s += (i ? ", " : "") + info_repr(in[i]);
        s += "], outputs=[";
        auto out = describe_slots(v.meta, Io::Output);
        for (size_t i = 0; i < out.size(); ++i)
          s += (i ? ", " : "") + info_repr(out[i]);
        return s + "])";
      });

  py::class_<MethodState, std::shared_ptr<MethodState>>(
      m, "Method",
      "A loaded method with its own planned memory. Calls on one Method are serialized; "
      "separate Methods run in parallel from separate threads (the GIL is released).")
      .def_property_readonly("name", [](const MethodState& s) { return s.name; })
      .def_property_readonly("meta",
                             [](const MethodState& s) {
                               return MethodMetaView{s.program, s.method->method_meta()};
                             })
      .def(
          "execute", [](MethodState& s, const py::object& inputs) { return run_method(s, inputs); },
          py::arg("inputs") = py::tuple(),
          "Runs the method on a sequence of inputs; returns the outputs as a list.")
      .def(
          "__call__", [](MethodState& s, const py::args& args) { return run_method(s, args); },
          "method(*inputs): runs the method; returns the outputs as a list.")
      .def(
          "profile_results",
          [](MethodState& s) {
            if (!s.profiler) {
              throw py::value_error("method '" + s.name + "' was not loaded with profile=True");
            }
            std::vector<OpProfiler::Row> copied;
            {
              MethodLock lock(s.mu);
              copied = s.profiler->rows();
            }
            // The Python list is built from the copy, after the lock is released.
            py::list rows;
            for (const auto& r : copied) {
              rows.append(py::make_tuple(r.name, r.calls, r.total_ns));
            }
            return rows;
          },
          "Per-operator (name, calls, total_ns) since load or the last reset_profile().")
      .def_property_readonly(
          "prepared_bytes",
          [](const MethodState& s) { return s.method->prepared_constant_bytes(); },
          "Heap bytes the load-time preparation added (folded constants, batch norms folded "
          "into weights, packed weights); 0 with prepare=False.")
      .def("reset_profile",
           [](MethodState& s) {
             if (s.profiler) {
               MethodLock lock(s.mu);
               s.profiler->reset();
             }
           })
      .def("write_etdump", &write_etdump, py::arg("path"),
           py::arg("debug_buffer_path") = py::none(),
           "Writes the ETDump (executorch.devtools.Inspector's etdump_path) of the executions "
           "since load or the last write_etdump (and, given a path, the used part of the "
           "debug buffer). Needs load_method(..., etdump=True).")
      .def("_fixed_input", &fixed_input, py::arg("index"),
           "The value a non-tensor input was fixed to at export (None for tensors).")
      .def("__repr__", [](const MethodState& s) {
        return "<executorch_runtime.Method '" + s.name + "' of '" + s.program->origin + "'>";
      });

  py::class_<ProgramState, std::shared_ptr<ProgramState>>(
      m, "Program", "A loaded .pte program. Methods and metas keep it alive.")
      .def_property_readonly(
          "method_names",
          [](const ProgramState& p) { return py::tuple(py::cast(method_names(p))); })
      .def(
          "method_meta",
          [](const std::shared_ptr<ProgramState>& p, const std::string& name) {
            return MethodMetaView{p, get_meta(*p, name)};
          },
          py::arg("name"))
      .def("load_method", &load_method, py::arg("name") = "forward", py::kw_only(),
           py::arg("profile") = false, py::arg("max_memory") = py::none(),
           py::arg("etdump") = false, py::arg("debug_buffer_size") = 0, py::arg("prepare") = true,
           "load_method(name='forward', *, profile=False, max_memory=None, etdump=False, "
           "debug_buffer_size=0, prepare=True) -> Method. "
           "etdump records an ETDump (see Method.write_etdump); debug_buffer_size > 0 also "
           "logs every operator output into a buffer of that many bytes. "
           "prepare=False runs every instruction at every call instead of folding "
           "constant-only ones and packing constant weights once at load (same results). "
           "max_memory caps the bytes allocated from sizes the program declares (planned "
           "buffers plus storage for unplanned outputs); None means half of physical memory. "
           "A method over the cap raises Error(MemoryAllocationFailed) before allocating.")
      .def("num_methods", [](const ProgramState& p) { return p.program->num_methods(); })
      .def(
          "get_method_name",
          [](const ProgramState& p, size_t i) {
            auto n = p.program->get_method_name(i);
            if (!n.ok())
              throw py::index_error("method index " + std::to_string(i) + " out of range");
            return std::string(n.get());
          },
          py::arg("index"))
      .def_property_readonly("origin", [](const ProgramState& p) { return p.origin; })
      .def("__repr__", [](const ProgramState& p) {
        return "<executorch_runtime.Program '" + p.origin +
               "' methods=" + py::repr(py::cast(method_names(p))).cast<std::string>() + ">";
      });

  m.def("load", &load, py::arg("source"), py::kw_only(),
        py::arg("verification") = Verification::Minimal, py::arg("data_path") = py::none(),
        "load(path_or_bytes, *, verification=Verification.Minimal, data_path=None) -> Program."
        " Paths are memory-mapped; bytes-like objects are copied. verification takes only a "
        "Verification member. data_path names a .ptd file with the program's external "
        "constants.");
}

}  // namespace etpy
