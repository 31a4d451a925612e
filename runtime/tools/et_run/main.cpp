// et_run: loads a .pte program, lists its methods, runs one method on ones or on .npy
// inputs, and prints the outputs and the load and execute times (optionally a
// per-operator profile). Usage: et_run --help.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/module/memory_limit.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include "args.h"
#include "bundled.h"
#include "method_loader.h"
#include "npy.h"
#include "print.h"
#include "etdump_output.h"
#include "profile.h"

namespace {

using et_run::LoadedMethod;
using et_run::now_ns;
using executorch::aten::ScalarType;
using executorch::aten::TensorImpl;
using executorch::extension::allocate_zeroed;
using executorch::extension::FileDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::extension::MallocMemoryAllocator;
using executorch::extension::MemoryBudget;
using executorch::extension::MmapDataLoader;
using executorch::extension::ZeroedBuffer;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::Tag;

/// An input tensor and the storage it points into.
struct OwnedTensor {
  std::vector<TensorImpl::SizesType> sizes;
  std::vector<TensorImpl::DimOrderType> dim_order;
  std::vector<TensorImpl::StridesType> strides;
  ZeroedBuffer data;
  std::unique_ptr<TensorImpl> impl;
};

/// Reserves `nbytes` in `budget` for `what`, then allocates them (zeroed).
Error allocate_within(
    MemoryBudget* budget,
    size_t nbytes,
    const std::string& what,
    ZeroedBuffer* out) {
  const Error e = budget->reserve(nbytes, what.c_str());
  if (e != Error::Ok) {
    return e;
  }
  *out = allocate_zeroed(nbytes);
  if (*out == nullptr) {
    std::fprintf(
        stderr,
        "et_run: %s: cannot allocate %zu bytes\n",
        what.c_str(),
        nbytes);
    return Error::MemoryAllocationFailed;
  }
  return Error::Ok;
}

}  // namespace

// Declared in method_loader.h (the --bundled mode loads its methods the same way).
Error et_run::load_method(
    const Program& program,
    const MethodMeta& meta,
    const char* name,
    executorch::runtime::EventTracer* tracer,
    const executorch::runtime::NamedDataMap* data_map,
    const executorch::runtime::MethodLoadConfig& config,
    MemoryBudget* budget,
    LoadedMethod* out) {
  const std::string what = std::string("method '") + name + "'";
  Error e = budget->reserve_planned(meta, (what + ": planned buffers").c_str());
  if (e != Error::Ok) {
    return e;
  }
  for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
    // reserve_planned() checked each size (non-negative, within the limit).
    const size_t size =
        static_cast<size_t>(meta.memory_planned_buffer_size(i).get());
    out->planned.push_back(allocate_zeroed(size));
    if (out->planned.back() == nullptr) {
      std::fprintf(
          stderr,
          "et_run: %s: cannot allocate planned buffer %zu of %zu bytes\n",
          what.c_str(),
          i,
          size);
      return Error::MemoryAllocationFailed;
    }
    out->spans.emplace_back(out->planned.back().get(), size);
  }
  out->planned_memory = std::make_unique<HierarchicalAllocator>(
      Span<Span<uint8_t>>(out->spans.data(), out->spans.size()));
  out->mm = std::make_unique<MemoryManager>(
      &out->method_alloc, out->planned_memory.get(), &out->temp_alloc);
  Result<Method> m =
      program.load_method(name, out->mm.get(), config, tracer, data_map);
  if (!m.ok()) {
    return m.error();
  }
  out->method.emplace(std::move(m.get()));
  for (size_t i = 0; i < meta.num_outputs(); ++i) {
    auto info = meta.output_tensor_meta(i);
    if (!info.ok() || info->is_memory_planned() || info->nbytes() == 0) {
      continue;  // not a tensor, or the program provides its memory
    }
    const size_t nbytes = info->nbytes();
    ZeroedBuffer buffer;
    e = allocate_within(
        budget, nbytes, what + ": output " + std::to_string(i), &buffer);
    if (e != Error::Ok) {
      return e;
    }
    e = out->method->set_output_data_ptr(buffer.get(), nbytes, i);
    if (e != Error::Ok) {
      return e;
    }
    out->output_buffers.push_back(std::move(buffer));
  }
  return Error::Ok;
}

namespace {

void contiguous_strides(OwnedTensor* t) {
  const size_t n = t->sizes.size();
  t->strides.assign(n, 1);
  // dim_order lists dims from outermost to innermost.
  int64_t stride = 1;
  for (size_t k = n; k-- > 0;) {
    const size_t d = t->dim_order[k];
    t->strides[d] = static_cast<TensorImpl::StridesType>(stride);
    stride *= std::max<int64_t>(t->sizes[d], 1);
  }
}

void fill_ones(void* data, ScalarType t, size_t numel) {
  switch (t) {
#define ET_RUN_FILL(ctype, name)                             \
  case ScalarType::name:                                     \
    std::fill_n(static_cast<ctype*>(data), numel, ctype(1)); \
    break;
    ET_FORALL_REAL_TYPES(ET_RUN_FILL)
#undef ET_RUN_FILL
    case ScalarType::Bool:
      std::fill_n(static_cast<bool*>(data), numel, true);
      break;
    case ScalarType::Half:
      std::fill_n(static_cast<uint16_t*>(data), numel, uint16_t{0x3C00});
      break;
    case ScalarType::BFloat16:
      std::fill_n(static_cast<uint16_t*>(data), numel, uint16_t{0x3F80});
      break;
    default:
      std::memset(data, 0, numel * executorch::runtime::elementSize(t));
      break;
  }
}

int fail(const std::string& what, Error e) {
  et_run::print_error(what, e);
  return 1;
}

int fail_msg(const std::string& msg) {
  std::fprintf(stderr, "et_run: %s\n", msg.c_str());
  return 1;
}

double median(std::vector<uint64_t> v) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? static_cast<double>(v[n / 2])
               : (static_cast<double>(v[n / 2 - 1]) +
                  static_cast<double>(v[n / 2])) /
                     2;
}

/// Builds input `i` from an .npy file or as ones; checks dtype and rank against meta.
int make_input(
    const et_run::Options& opt,
    const MethodMeta& meta,
    size_t i,
    const EValue& traced,
    MemoryBudget* budget,
    std::vector<std::unique_ptr<OwnedTensor>>* owned,
    EValue* out,
    std::string* shape_note) {
  Result<Tag> tag = meta.input_tag(i);
  if (!tag.ok()) {
    return fail(
        "input " + std::to_string(i) + ": reading its kind", tag.error());
  }
  const bool from_file = i < opt.inputs.size();
  et_run::NpyArray arr;
  if (from_file) {
    std::string err;
    if (!et_run::read_npy(opt.inputs[i], &arr, &err)) {
      return fail_msg("input " + std::to_string(i) + ": " + err);
    }
  }
  if (tag.get() != Tag::Tensor) {
    if (!from_file) {
      // A prim input must equal its traced value: pass that value back.
      *out = traced;
      return 0;
    }
    if (!arr.shape.empty() || arr.data.empty()) {
      return fail_msg(
          "input " + std::to_string(i) + ": method input is " +
          executorch::runtime::tag_to_string(tag.get()) + ", '" +
          opt.inputs[i] + "' must hold a 0-dimensional array");
    }
    const void* p = arr.data.data();
    if (tag.get() == Tag::Int && arr.dtype == ScalarType::Long) {
      int64_t v;
      std::memcpy(&v, p, sizeof(v));
      *out = EValue(v);
    } else if (tag.get() == Tag::Double && arr.dtype == ScalarType::Double) {
      double v;
      std::memcpy(&v, p, sizeof(v));
      *out = EValue(v);
    } else if (tag.get() == Tag::Bool && arr.dtype == ScalarType::Bool) {
      *out = EValue(arr.data[0] != 0);
    } else {
      return fail_msg(
          "input " + std::to_string(i) + ": method input is " +
          executorch::runtime::tag_to_string(tag.get()) + ", '" +
          opt.inputs[i] + "' holds dtype " + arr.descr +
          " (use int64, float64 or bool)");
    }
    return 0;
  }
  Result<executorch::runtime::TensorInfo> info = meta.input_tensor_meta(i);
  if (!info.ok()) {
    return fail(
        "input " + std::to_string(i) + ": reading its tensor meta",
        info.error());
  }
  auto t = std::make_unique<OwnedTensor>();
  const ScalarType dtype = info->scalar_type();
  for (int32_t s : info->sizes()) {
    t->sizes.push_back(s);
  }
  for (uint8_t d : info->dim_order()) {
    t->dim_order.push_back(d);
  }
  if (t->dim_order.size() != t->sizes.size()) {
    t->dim_order.resize(t->sizes.size());
    for (size_t d = 0; d < t->dim_order.size(); ++d) {
      t->dim_order[d] = static_cast<uint8_t>(d);
    }
  }
  size_t nbytes;
  if (from_file) {
    const std::string expected =
        et_run::dtype_name(dtype) + " " + et_run::shape_str(info->sizes());
    if (arr.dtype != dtype) {
      return fail_msg(
          "input " + std::to_string(i) + ": '" + opt.inputs[i] +
          "' has dtype " + et_run::dtype_name(arr.dtype) + " (" + arr.descr +
          "), method '" + meta.name() + "' expects " + expected);
    }
    if (arr.shape.size() != t->sizes.size()) {
      return fail_msg(
          "input " + std::to_string(i) + ": '" + opt.inputs[i] +
          "' has shape " + et_run::shape_str(arr.shape) + " (rank " +
          std::to_string(arr.shape.size()) + "), method '" + meta.name() +
          "' expects " + expected);
    }
    bool same = true;
    for (size_t d = 0; d < arr.shape.size(); ++d) {
      same = same && t->sizes[d] == arr.shape[d];
      t->sizes[d] = static_cast<int32_t>(arr.shape[d]);
    }
    if (!same) {
      *shape_note =
          "'" + opt.inputs[i] + "' has shape " + et_run::shape_str(arr.shape) +
          ", method '" + meta.name() + "' expects " + expected +
          " (a different shape needs a dynamic input within its bound)";
    }
    nbytes = arr.data.size();
  } else {
    nbytes = info->nbytes();
  }
  contiguous_strides(t.get());
  const Error alloc_err =
      allocate_within(budget, nbytes, "input " + std::to_string(i), &t->data);
  if (alloc_err != Error::Ok) {
    return fail("input " + std::to_string(i), alloc_err);
  }
  size_t numel = 1;
  for (int32_t s : t->sizes) {
    numel *= static_cast<size_t>(s);
  }
  if (from_file) {
    std::memcpy(t->data.get(), arr.data.data(), nbytes);
  } else {
    fill_ones(t->data.get(), dtype, numel);
  }
  t->impl = std::make_unique<TensorImpl>(
      dtype,
      static_cast<ssize_t>(t->sizes.size()),
      t->sizes.data(),
      t->data.get(),
      t->dim_order.data(),
      t->strides.data());
  *out = EValue(executorch::aten::Tensor(t->impl.get()));
  owned->push_back(std::move(t));
  return 0;
}

void print_methods(const Program& program) {
  const size_t n = program.num_methods();
  std::printf("methods (%zu):\n", n);
  for (size_t m = 0; m < n; ++m) {
    Result<const char*> name = program.get_method_name(m);
    if (!name.ok()) {
      continue;
    }
    Result<MethodMeta> meta = program.method_meta(name.get());
    if (!meta.ok()) {
      std::printf(
          "  %s: %s\n",
          name.get(),
          executorch::runtime::to_string(meta.error()));
      continue;
    }
    std::printf(
        "  %s: %zu input%s, %zu output%s\n",
        name.get(),
        meta->num_inputs(),
        meta->num_inputs() == 1 ? "" : "s",
        meta->num_outputs(),
        meta->num_outputs() == 1 ? "" : "s");
    for (size_t i = 0; i < meta->num_inputs(); ++i) {
      std::printf(
          "    input %zu: %s\n",
          i,
          et_run::io_description(meta.get(), i, true).c_str());
    }
    for (size_t i = 0; i < meta->num_outputs(); ++i) {
      std::printf(
          "    output %zu: %s\n",
          i,
          et_run::io_description(meta.get(), i, false).c_str());
    }
    for (size_t b = 0; b < meta->num_backends(); ++b) {
      Result<const char*> backend = meta->get_backend_name(b);
      std::printf("    backend: %s\n", backend.ok() ? backend.get() : "?");
    }
  }
}

/// Runs warmup + timed iterations, each on freshly set inputs; returns the exit
/// status.
int run_iterations(
    const et_run::Options& opt,
    Method& method,
    const std::vector<EValue>& inputs,
    const std::vector<std::string>& notes,
    std::vector<uint64_t>* times,
    et_run::OpTracer* tracer = nullptr,
    et_run::EtdumpRecorder* etdump = nullptr) {
  for (int w = 0; w < opt.warmup + opt.iterations; ++w) {
    // Inputs are set again before every execution (untimed): the memory plan may
    // reuse an input's planned buffer once the input is dead, so the previous
    // execution can have overwritten it.
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Error e = method.set_input(inputs[i], i);
      if (e != Error::Ok) {
        std::string what = "input " + std::to_string(i);
        if (i < notes.size() && !notes[i].empty()) {
          what += ": " + notes[i];
        } else if (i < opt.inputs.size()) {
          what += " ('" + opt.inputs[i] + "')";
        }
        return fail(what + "; set_input", e);
      }
    }
    if (tracer != nullptr) {
      // Operator events count only in the timed iterations.
      tracer->set_enabled(w >= opt.warmup);
    }
    if (etdump != nullptr && w == opt.warmup && w > 0) {
      etdump->restart();  // the ETDump holds the timed iterations only
    }
    const uint64_t t0 = now_ns();
    const Error e = method.execute();
    const uint64_t t1 = now_ns();
    if (e != Error::Ok) {
      return fail(
          "executing method '" + std::string(method.method_meta().name()) + "'",
          e);
    }
    if (w >= opt.warmup) {
      times->push_back(t1 - t0);
    }
  }
  return 0;
}

int run(const et_run::Options& opt) {
  executorch::runtime::runtime_init();

  // ---- program
  const uint64_t t_open = now_ns();
  Result<MmapDataLoader> loader = MmapDataLoader::from(
      opt.model.c_str(), MmapDataLoader::MlockConfig::UseMlockIgnoreErrors);
  if (!loader.ok()) {
    return fail("opening '" + opt.model + "'", loader.error());
  }
  Result<Program> program_r = Program::load(
      &loader.get(),
      opt.full_verification ? Program::Verification::InternalConsistency
                            : Program::Verification::Minimal);
  const uint64_t t_program = now_ns();
  if (!program_r.ok()) {
    return fail("loading program '" + opt.model + "'", program_r.error());
  }
  const Program& program = program_r.get();
  std::printf("program: %s\n", opt.model.c_str());
  print_methods(program);

  // ---- method choice
  std::string name = opt.method;
  if (name.empty()) {
    name = "forward";
    if (!program.method_meta("forward").ok()) {
      Result<const char*> first = program.get_method_name(0);
      if (!first.ok()) {
        return fail("program has no method", first.error());
      }
      name = first.get();
    }
  }
  Result<MethodMeta> meta = program.method_meta(name.c_str());
  if (!meta.ok()) {
    std::string known;
    for (size_t m = 0; m < program.num_methods(); ++m) {
      Result<const char*> n = program.get_method_name(m);
      known += std::string(m ? ", " : "") + (n.ok() ? n.get() : "?");
    }
    return fail(
        "method '" + name + "' (the program has: " + known + ")", meta.error());
  }
  if (opt.inputs.size() > meta->num_inputs()) {
    return fail_msg(
        std::to_string(opt.inputs.size()) + " --input files given, method '" +
        name + "' has " + std::to_string(meta->num_inputs()) + " input(s)");
  }

  // ---- external data
  std::optional<FileDataLoader> data_loader;
  std::optional<FlatTensorDataMap> data_map;
  if (!opt.data_path.empty()) {
    Result<FileDataLoader> dl = FileDataLoader::from(opt.data_path.c_str());
    if (!dl.ok()) {
      return fail("opening '" + opt.data_path + "'", dl.error());
    }
    data_loader.emplace(std::move(dl.get()));
    Result<FlatTensorDataMap> dm = FlatTensorDataMap::load(&*data_loader);
    if (!dm.ok()) {
      return fail("loading data '" + opt.data_path + "'", dm.error());
    }
    data_map.emplace(std::move(dm.get()));
  }
  const executorch::runtime::NamedDataMap* named =
      data_map ? &*data_map : nullptr;

  // ---- method
  et_run::OpTracer tracer;
  std::unique_ptr<et_run::EtdumpRecorder> etdump;
  if (!opt.etdump_path.empty()) {
    etdump = std::make_unique<et_run::EtdumpRecorder>(
        opt.etdump_path, opt.debug_buffer_size);
  }
  executorch::runtime::EventTracer* method_tracer =
      opt.profile ? &tracer
      : etdump
          ? static_cast<executorch::runtime::EventTracer*>(etdump->tracer())
          : nullptr;
  auto lm = std::make_unique<LoadedMethod>();
  // One budget for everything sized from the program: planned buffers, unplanned outputs
  // and the inputs made below.
  MemoryBudget budget(opt.max_memory, "raise it with --max-memory BYTES");
  const uint64_t t_m0 = now_ns();
  Error e = load_method(
      program,
      meta.get(),
      name.c_str(),
      method_tracer,
      named,
      executorch::runtime::MethodLoadConfig{opt.prepare},
      &budget,
      lm.get());
  const uint64_t t_m1 = now_ns();
  if (e != Error::Ok) {
    return fail("loading method '" + name + "'", e);
  }
  Method& method = *lm->method;

  // ---- inputs
  std::vector<std::unique_ptr<OwnedTensor>> owned;
  std::vector<EValue> traced(method.inputs_size());
  if (!traced.empty()) {
    // The traced prim values: the only public way to read them is the deprecated getter.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    (void)method.get_inputs(traced.data(), traced.size());
#pragma GCC diagnostic pop
  }
  std::vector<EValue> inputs(method.inputs_size());
  std::vector<std::string> notes(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int rc = make_input(
        opt, meta.get(), i, traced[i], &budget, &owned, &inputs[i], &notes[i]);
    if (rc != 0) {
      return rc;
    }
  }
  std::printf(
      "\nrunning '%s' on %s\n",
      name.c_str(),
      opt.inputs.empty()                  ? "ones"
      : opt.inputs.size() < inputs.size() ? ".npy files and ones"
                                          : ".npy files");

  // ---- execute
  std::vector<uint64_t> times;
  int rc = run_iterations(
      opt,
      method,
      inputs,
      notes,
      &times,
      opt.profile ? &tracer : nullptr,
      etdump.get());
  tracer.set_enabled(false);
  if (rc != 0) {
    return rc;
  }

  // ---- outputs
  std::vector<EValue> outputs(method.outputs_size());
  // A method may have no outputs; get_outputs() has nothing to fill then.
  e = outputs.empty() ? Error::Ok
                      : method.get_outputs(outputs.data(), outputs.size());
  if (e != Error::Ok) {
    return fail("get_outputs", e);
  }
  if (!opt.output_dir.empty()) {
    if (mkdir(opt.output_dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return fail_msg(
          "cannot create '" + opt.output_dir + "': " + std::strerror(errno));
    }
  }
  std::printf("outputs (%zu):\n", outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::printf("  output %zu: ", i);
    et_run::print_value(outputs[i], opt.values, opt.top);
    if (!opt.output_dir.empty() && outputs[i].isTensor()) {
      const executorch::aten::Tensor& t = outputs[i].toTensor();
      std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
      const std::string path =
          opt.output_dir + "/output_" + std::to_string(i) + ".npy";
      std::string err;
      if (!et_run::write_npy(
              path,
              t.scalar_type(),
              shape,
              t.const_data_ptr(),
              t.nbytes(),
              &err)) {
        std::fprintf(stderr, "et_run: output %zu: %s\n", i, err.c_str());
      }
    }
  }

  // ---- memory: what the program plans, and what load-time preparation added on the heap
  // (folded constants, batch norms folded into weights, packed weights).
  size_t planned_bytes = 0;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    const auto size = meta->memory_planned_buffer_size(i);
    planned_bytes += size.ok() ? static_cast<size_t>(size.get()) : 0;
  }
  std::printf(
      "\nmemory:\n  planned buffers:             %zu bytes\n"
      "  prepared at load:            %zu bytes%s\n",
      planned_bytes,
      method.prepared_constant_bytes(),
      opt.prepare ? "" : " (--no-prepare)");

  // ---- times
  uint64_t exec_total = 0;
  for (uint64_t t : times) {
    exec_total += t;
  }
  std::printf("\ntimes:\n");
  std::printf(
      "  program load (mmap + parse): %s\n",
      et_run::format_ms(double(t_program - t_open)).c_str());
  std::printf(
      "  method load:                 %s\n",
      et_run::format_ms(double(t_m1 - t_m0)).c_str());
  std::printf(
      "  execute: median %s, min %s over %d iteration%s\n",
      et_run::format_ms(median(times)).c_str(),
      et_run::format_ms(double(*std::min_element(times.begin(), times.end())))
          .c_str(),
      opt.iterations,
      opt.iterations == 1 ? "" : "s");

  // ---- profile: the operator and delegate events the Method reported to the tracer.
  if (opt.profile) {
    std::printf("\n");
    et_run::print_op_table(tracer.table(), opt.iterations, exec_total);
    std::printf(
        "prepared at load: %zu instruction%s folded or fused; %zu extra bytes "
        "(folded constants and packed weights)%s\n",
        method.prepared_instruction_count(),
        method.prepared_instruction_count() == 1 ? "" : "s",
        method.prepared_constant_bytes(),
        opt.prepare ? "" : " (--no-prepare)");
    std::printf(
        "layout at load: %zu values switched to channels-last\n",
        method.channels_last_value_count());
  }
  if (etdump && !etdump->write()) {
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  et_run::Options opt;
  bool exit_now = false;
  const int rc = et_run::parse_args(argc, argv, &opt, &exit_now);
  if (exit_now) {
    return rc;
  }
  if (!opt.bundled.empty()) {
    return et_run::run_bundled(opt);
  }
  return run(opt);
}
