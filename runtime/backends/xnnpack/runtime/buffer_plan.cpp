// plan_intermediate_buffers() (graph.h): the intermediate values share one arena, placed by
// liveness so that values whose lifetimes overlap never share bytes.
#include <algorithm>
#include <cinttypes>
#include <vector>

#include <executorch/runtime/platform/log.h>

#include "graph.h"

namespace executorch {
namespace backends {
namespace xnnpack {

using runtime::Error;

namespace {

// Offsets are kept on 64-byte boundaries (the compute core's vector loads prefer them).
constexpr size_t kAlignFloats = 16;

size_t aligned(size_t n) {
  return (n + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
}

struct Block {
  uint32_t id = 0;
  uint32_t first = 0,
           last = 0;  // payload node indices: the writer, the last reader
  size_t size = 0;    // floats, aligned
  size_t offset = 0;
};

bool overlap_in_time(const Block& a, const Block& b) {
  return a.first <= b.last && b.first <= a.last;
}

}  // namespace

Error plan_intermediate_buffers(Graph& graph) {
  // Lifetimes from the steps: a value lives from the node that writes it to the last node that
  // reads it (a value nobody reads still needs its writer's node).
  constexpr uint32_t kUnset = UINT32_MAX;
  std::vector<uint32_t> first(graph.values.size(), kUnset),
      last(graph.values.size(), 0);
  for (const auto& step : graph.steps) {
    for (uint32_t id : step->outputs) {
      first[id] = std::min(first[id], step->owner_index);
      last[id] = std::max(last[id], step->owner_index);
    }
    for (uint32_t id : step->inputs) {
      last[id] = std::max(last[id], step->owner_index);
    }
  }
  std::vector<Block> blocks;
  size_t unshared = 0;
  for (uint32_t id = 0; id < graph.values.size(); ++id) {
    const Value& v = graph.values[id];
    if (first[id] == kUnset || v.is_constant ||
        (v.flags & (kFlagExternalInput | kFlagExternalOutput)) != 0) {
      continue;
    }
    Block b;
    b.id = id;
    b.first = first[id];
    b.last = last[id];
    b.size = aligned(v.capacity == 0 ? 1 : v.capacity);
    unshared += b.size;
    blocks.push_back(b);
  }
  // Greedy by size, largest first: each block takes the lowest offset where it overlaps no
  // already placed block that is alive at the same time.
  std::vector<Block*> order;
  for (Block& b : blocks)
    order.push_back(&b);
  std::stable_sort(
      order.begin(), order.end(), [](const Block* a, const Block* b) {
        return a->size > b->size;
      });
  std::vector<const Block*> placed, live;
  size_t arena = 0;
  for (Block* b : order) {
    live.clear();
    for (const Block* p : placed)
      if (overlap_in_time(*p, *b))
        live.push_back(p);
    std::sort(live.begin(), live.end(), [](const Block* x, const Block* y) {
      return x->offset < y->offset;
    });
    size_t offset = 0;
    for (const Block* p : live) {
      if (p->offset >= offset + b->size)
        break;  // the gap before p fits
      offset = std::max(offset, p->offset + p->size);
    }
    b->offset = offset;
    arena = std::max(arena, offset + b->size);
    placed.push_back(b);
  }
  float* base = graph.allocate_floats(arena);
  if (base == nullptr) {
    ET_LOG(
        Error,
        "XnnpackBackend: no memory for the intermediate values (%zu bytes)",
        arena * sizeof(float));
    return Error::MemoryAllocationFailed;
  }
  for (const Block& b : blocks)
    graph.values[b.id].data = base + b.offset;
  graph.intermediate_bytes = arena * sizeof(float);
  graph.intermediate_bytes_unshared = unshared * sizeof(float);
  ET_LOG(
      Debug,
      "XnnpackBackend: %zu intermediate values in %zu bytes (%zu without "
      "sharing)",
      blocks.size(),
      graph.intermediate_bytes,
      graph.intermediate_bytes_unshared);
  return Error::Ok;
}

}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
