#!/usr/bin/env python3
"""Python-side costs of executorch_runtime (not a test; timing on a shared machine is noisy).

    PYTHONPATH=build/python python3 bench/python_overhead.py [--iterations N] [--model X.pte]

1. `import executorch_runtime` time: the package's cumulative import time as reported by
   `python -X importtime`, best of several fresh interpreters (and whether torch/numpy got
   imported).
2. Per-call overhead of `method(x)` over the C++ path for a tiny model: a C++ program built
   against the package's SDK (--cflags/--libs) times set_input + execute + get_outputs on the
   same program; the difference to the Python call (argument checks, GIL release, numpy
   output copies) is the overhead. Both report the median of several batches.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CPP = r"""
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/program.h>
using namespace executorch::runtime;
using executorch::extension::MmapDataLoader;
using executorch::extension::MallocMemoryAllocator;
int main(int argc, char** argv) {
  int iters = std::atoi(argv[2]);
  auto loader = MmapDataLoader::from(argv[1], MmapDataLoader::MlockConfig::NoMlock);
  auto program = Program::load(&loader.get());
  auto meta = program->method_meta("forward");
  std::vector<std::vector<uint8_t>> bufs; std::vector<Span<uint8_t>> spans;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    bufs.emplace_back(*meta->memory_planned_buffer_size(i));
    spans.emplace_back(bufs.back().data(), bufs.back().size());
  }
  HierarchicalAllocator planned({spans.data(), spans.size()});
  MallocMemoryAllocator alloc;
  MemoryManager mm(&alloc, &planned);
  auto method = program->load_method("forward", &mm);
  if (!method.ok()) { std::printf("load_method failed\n"); return 1; }
  // Inputs: ones of each tensor input's shape (float32 only, enough for the tiny model).
  std::vector<std::vector<float>> data; std::vector<std::vector<int32_t>> sizes;
  std::vector<std::vector<uint8_t>> orders; std::vector<executorch::aten::TensorImpl> impls;
  size_t n = meta->num_inputs();
  data.resize(n); sizes.resize(n); orders.resize(n); impls.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto ti = meta->input_tensor_meta(i);
    sizes[i].assign(ti->sizes().begin(), ti->sizes().end());
    orders[i].assign(ti->dim_order().begin(), ti->dim_order().end());
    data[i].assign(ti->nbytes() / 4, 1.0f);
    impls.emplace_back(ti->scalar_type(), sizes[i].size(), sizes[i].data(), data[i].data(),
                       orders[i].data());
  }
  std::vector<EValue> outs(method->outputs_size());
  std::vector<double> batches;
  for (int b = 0; b < 7; ++b) {
    auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < iters; ++it) {
      for (size_t i = 0; i < n; ++i) {
        if (method->set_input(EValue(executorch::aten::Tensor(&impls[i])), i) != Error::Ok) return 2;
      }
      if (method->execute() != Error::Ok) return 3;
      if (method->get_outputs(outs.data(), outs.size()) != Error::Ok) return 4;
    }
    auto t1 = std::chrono::steady_clock::now();
    batches.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  std::sort(batches.begin(), batches.end());
  std::printf("%.1f\n", batches[batches.size() / 2]);
  return 0;
}
"""


def import_time_us(runs=7):
    best = None
    mods = None
    for _ in range(runs):
        r = subprocess.run([sys.executable, "-X", "importtime", "-c",
                            "import sys, executorch_runtime; "
                            "print('torch' in sys.modules, 'numpy' in sys.modules)"],
                           capture_output=True, text=True, check=True)
        mods = r.stdout.strip()
        for line in r.stderr.splitlines():
            m = re.match(r"import time:\s+\d+\s+\|\s+(\d+)\s+\|\s?(\S+)$", line.rstrip())
            if m and m.group(2) == "executorch_runtime":
                v = int(m.group(1))
                best = v if best is None else min(best, v)
    wall = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import executorch_runtime"], check=True)
        t1 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        wall.append((t1 - t0) - (time.perf_counter() - t1))
    return best, mods, statistics.median(wall) * 1e6


def python_call_ns(model, iters):
    import numpy as np

    import executorch_runtime as et

    m = et.load(model).load_method("forward")
    xs = [np.ones(i.shape, dtype=i.dtype) for i in m.meta.inputs]
    for _ in range(1000):
        m(*xs)
    batches = []
    for _ in range(7):
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            m(*xs)
        batches.append((time.perf_counter_ns() - t0) / iters)
    return statistics.median(batches)


def cpp_call_ns(model, iters):
    env = dict(os.environ)
    def flags(f):
        return subprocess.run([sys.executable, "-m", "executorch_runtime", f], capture_output=True,
                              text=True, check=True).stdout.split()
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "b.cpp"), os.path.join(d, "b")
        with open(src, "w") as f:
            f.write(CPP)
        subprocess.run(["g++", "-O2", *flags("--cflags"), src, "-o", exe, *flags("--libs")],
                       check=True, env=env)
        out = subprocess.run([exe, model, str(iters)], capture_output=True, text=True, check=True)
        return float(out.stdout)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--iterations", type=int, default=20000)
    p.add_argument("--model", default=os.path.join(ROOT, "test/fixtures/zoo/constant_methods.pte"))
    a = p.parse_args()
    best, mods, wall = import_time_us()
    print(f"import executorch_runtime: {best / 1000:.1f} ms (-X importtime cumulative, best of 7); "
          f"wall minus bare interpreter {wall / 1000:.1f} ms (median); torch/numpy imported: {mods}")
    py = python_call_ns(a.model, a.iterations)
    cpp = cpp_call_ns(a.model, a.iterations)
    print(f"model {os.path.basename(a.model)} forward: python method(x) {py / 1000:.2f} us/call, "
          f"C++ set_input+execute+get_outputs {cpp / 1000:.2f} us/call, "
          f"overhead {(py - cpp) / 1000:.2f} us/call")


if __name__ == "__main__":
    main()
