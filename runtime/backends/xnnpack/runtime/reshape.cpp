// The reshape pass (graph.h): shapes propagated from the call's inputs through the steps, and
// the default for node types whose shapes are fixed.
#include <cstdarg>
#include <cstdio>

#include <executorch/runtime/platform/log.h>

#include "node_context.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;

void format_dims(const std::vector<size_t>& dims, char* out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < dims.size() && used < size; ++i) {
    const int n =
        snprintf(out + used, size - used, i == 0 ? "[%zu" : ", %zu", dims[i]);
    if (n < 0)
      return;
    used += static_cast<size_t>(n);
  }
  if (used < size)
    snprintf(out + used, size - used, dims.empty() ? "[]" : "]");
}

Error Step::fail(Error error, const char* format, ...) const {
  char message[256];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  ET_LOG(
      Error,
      "XnnpackBackend: node %u (%s): %s",
      owner_index,
      owner_type_name != nullptr ? owner_type_name : "?",
      message);
  return error;
}

Error Step::reshape(Graph& graph) {
  for (uint32_t id : inputs) {
    const Value& v = graph.value(id);
    if (v.dims != v.bound_dims) {
      char now[96], exported[96];
      format_dims(v.dims, now, sizeof(now));
      format_dims(v.bound_dims, exported, sizeof(exported));
      return fail(
          Error::NotSupported,
          "this node type runs only at its exported shapes: input %u is %s, "
          "exported as %s",
          id,
          now,
          exported);
    }
  }
  // The outputs keep their exported shapes: nothing else ever changes them.
  return Error::Ok;
}

void set_dims(Value& v, const size_t* dims, size_t rank) {
  // Never grows: the ranks of a value are fixed, so assign() reuses the vector's storage.
  v.dims.assign(dims, dims + rank);
  v.numel = numel_of(v.dims);
}

Error reshape_graph(Graph& graph) {
  graph.shapes_valid = false;
  for (auto& step : graph.steps) {
    Error err = step->reshape(graph);
    if (err != Error::Ok) {
      return err;
    }
    for (uint32_t id : step->outputs) {
      const Value& v = graph.value(id);
      if (v.numel > v.capacity) {
        char now[96], exported[96];
        format_dims(v.dims, now, sizeof(now));
        format_dims(v.bound_dims, exported, sizeof(exported));
        return step->fail(
            Error::InvalidArgument,
            "output %u would be %s, larger than its exported bound %s",
            id,
            now,
            exported);
      }
    }
  }
  graph.shapes_valid = true;
  return Error::Ok;
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
