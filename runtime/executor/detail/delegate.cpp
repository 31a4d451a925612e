/*
 * Backend delegate init/destroy for Method load (docs/format.md §5).
 *
 * Program validation (detail/instruction_validation.cpp) already checked the
 * delegate entry (id, processed reference, compile spec keys); those are
 * only asserted here in debug builds.
 */
#include <executorch/runtime/executor/detail/delegate.h>

#include <algorithm>
#include <new>
#include <vector>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/executor/detail/flatbuffer_vectors.h>
#include <executorch/runtime/executor/detail/program_access.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace internal {

namespace fb = ::executorch_flatbuffer;

namespace {

/// The delegate's processed payload (docs/format.md §1.5).
Result<FreeableBuffer> get_processed(
    const fb::BackendDelegate& d,
    size_t delegate_index,
    const Program* program) {
  const fb::BackendDelegateDataReference* ref = d.processed();
  ET_DCHECK(ref != nullptr);
  switch (ref->location()) {
    case fb::DataLocation::INLINE: {
      const void* data = nullptr;
      size_t size = 0;
      Error err = ProgramAccess::backend_delegate_data(
          *program, ref->index(), &data, &size);
      if (err != Error::Ok) {
        ET_LOG(
            Error,
            "delegates[%zu] ('%s'): processed.index %u is not an inline "
            "delegate data entry",
            delegate_index,
            d.id()->c_str(),
            ref->index());
        return err;
      }
      // Lives in the program buffer: nothing to release.
      return FreeableBuffer(data, size, nullptr);
    }
    case fb::DataLocation::SEGMENT: {
      Result<FreeableBuffer> seg = ProgramAccess::load_segment(
          *program,
          DataLoader::SegmentInfo(
              DataLoader::SegmentInfo::Type::Backend,
              ref->index(),
              d.id()->c_str()));
      if (!seg.ok()) {
        ET_LOG(
            Error,
            "delegates[%zu] ('%s'): processed segment %u cannot be loaded",
            delegate_index,
            d.id()->c_str(),
            ref->index());
      }
      return seg;
    }
    default:
      // Validation refuses unknown locations.
      ET_DCHECK_MSG(false, "delegates[%zu]: unknown location", delegate_index);
      return Error::Internal;
  }
}

}  // namespace

Error BackendDelegate::Init(
    const fb::BackendDelegate& d,
    size_t delegate_index,
    const Program* program,
    BackendInitContext& context,
    BackendDelegate* out) {
  ET_DCHECK(d.id() != nullptr);
  const char* id = d.id()->c_str();
  BackendInterface* backend = get_backend_class(id);
  if (backend == nullptr) {
    ET_LOG(
        Error,
        "delegates[%zu]: backend '%s' is not registered",
        delegate_index,
        id);
    return Error::NotFound;
  }
  if (!backend->is_available()) {
    ET_LOG(
        Error,
        "delegates[%zu]: backend '%s' is not available",
        delegate_index,
        id);
    return Error::NotFound;
  }

  // Compile specs, in method memory, pointing into the flatbuffer.
  const auto* s_specs = d.compile_specs();
  const size_t n_specs = detail::vsize(s_specs);
  CompileSpec* specs =
      allocate_array<CompileSpec>(context.get_runtime_allocator(), n_specs);
  if (specs == nullptr) {
    return Error::MemoryAllocationFailed;
  }
  for (size_t i = 0; i < n_specs; ++i) {
    const fb::CompileSpec* s =
        s_specs->Get(static_cast<flatbuffers::uoffset_t>(i));
    ET_DCHECK(s != nullptr && s->key() != nullptr);
    specs[i].key = s->key()->c_str();
    specs[i].value.buffer =
        s->value() ? const_cast<uint8_t*>(s->value()->data()) : nullptr;
    specs[i].value.nbytes = s->value() ? s->value()->size() : 0;
  }

  Result<FreeableBuffer> processed = get_processed(d, delegate_index, program);
  if (!processed.ok()) {
    return processed.error();
  }

  new (out) BackendDelegate(id, backend, std::move(processed.get()));
  std::vector<size_t> written;
  context.internal_set_written_arg_sink(
      [](void* state, size_t arg_index) {
        static_cast<std::vector<size_t>*>(state)->push_back(arg_index);
      },
      &written);
  Result<DelegateHandle*> handle = backend->init(
      context, &out->processed_, ArrayRef<CompileSpec>(specs, n_specs));
  context.internal_set_written_arg_sink(nullptr, nullptr);
  if (!handle.ok()) {
    ET_LOG(
        Error,
        "delegates[%zu]: backend '%s' init failed: error 0x%x",
        delegate_index,
        id,
        static_cast<unsigned>(handle.error()));
    out->backend_ = nullptr;  // not initialized: no destroy()
    out->~BackendDelegate();
    return handle.error();
  }
  out->handle_ = handle.get();
  if (!written.empty()) {
    size_t* copy =
        allocate_array<size_t>(context.get_runtime_allocator(), written.size());
    if (copy == nullptr) {
      out->~BackendDelegate();  // destroys the handle: *out was not counted
      return Error::MemoryAllocationFailed;
    }
    std::copy(written.begin(), written.end(), copy);
    out->written_args_ = copy;
    out->n_written_args_ = written.size();
  }
  return Error::Ok;
}

BackendDelegate::~BackendDelegate() {
  if (backend_ != nullptr) {
    backend_->destroy(handle_);
    backend_ = nullptr;
  }
  processed_.Free();
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
