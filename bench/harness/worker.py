#!/usr/bin/env python3
"""One runtime's worker process for the benchmark harness (see bench/harness/bench.py).

    worker.py --runtime ours-py|upstream|eager --spec JSON

ours-py runs under the plain python3 with our bindings on PYTHONPATH (executorch_runtime);
upstream and eager run under the zoo venv's python (executorch 1.5.1, torch 2.13.0+cpu).
The protocol is the one of the C++ worker et_bench.cpp: at start the worker loads (file to first
method ready; for eager: building the module and its inputs from test/zoo with the program's
seed), runs the first execution, checks it against the goldens and prints one JSON line; then
it answers `run N`, `rss` and `quit`, one JSON line each.

Single thread: the harness sets OMP/MKL/OpenBLAS thread counts to 1 and pins the process to one
core; here torch gets set_num_threads(1) and set_num_interop_threads(1) and runs under
inference_mode, and upstream's kernel threadpool is reset to 1 thread. A spec with "threads": N
(the real-size section's multi-thread rows) sets N instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def status_kb(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


def emit(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def load_value(d, np):
    if d["kind"] == "tensor":
        return np.load(d["path"], allow_pickle=False)
    return d["value"]


def compare(outs, goldens, atol, rtol, np):
    """(correct, max_abs_err, note) for the first execution's outputs."""
    if len(outs) != len(goldens):
        return False, None, f"{len(outs)} outputs, expected {len(goldens)}"
    max_err = 0.0
    for a, g in zip(outs, goldens):
        e = load_value(g, np)
        if g["kind"] != "tensor":
            if a != e:
                return False, None, f"{a!r} != {e!r}"
            continue
        a = np.asarray(a)
        if a.dtype != e.dtype or a.shape != e.shape:
            return False, None, f"{a.dtype}{list(a.shape)} != {e.dtype}{list(e.shape)}"
        if a.size == 0:
            continue
        if a.dtype == np.bool_ or np.issubdtype(a.dtype, np.integer):
            if not np.array_equal(a, e):
                return False, None, "integer/bool values differ"
            continue
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        max_err = max(max_err, float(np.nanmax(np.abs(a64 - e64))) if a.size else 0.0)
        if not np.allclose(a64, e64, atol=atol, rtol=rtol, equal_nan=True):
            return False, max_err, "values outside tolerance"
    return True, max_err, ""


def flatten_outputs(out, torch):
    from torch.utils import _pytree as pytree

    leaves, _ = pytree.tree_flatten(out)
    return [x.detach().numpy() if isinstance(x, torch.Tensor) else x for x in leaves]


def make_eager(spec, torch):
    """(build_seconds, callable, args, inputs_match) for an eager module re-created with its seed."""
    import copy

    kind, _, name = spec["eager"].partition(":")
    t0 = time.perf_counter()
    if kind == "zoo":
        sys.path.insert(0, str(REPO / "test" / "zoo"))
        import export_zoo as ez  # noqa: E402  (the exporter's own builders: same modules, same inputs)

        progs = {p.name: p for p in ez.PROGRAMS}
        ps = progs[name]
        ez.seed_everything(ps.seed_name or ps.name)
        build = ps.build()
        ms = build.methods[spec["method"]]
        module, args = ms.module, copy.deepcopy(ms.calls[0])
    elif kind == "chain":
        sys.path.insert(0, str(HERE))
        import make_chain  # noqa: E402

        module, args = make_chain.build(int(name))
    elif kind == "realsize":
        sys.path.insert(0, str(REPO / "bench" / "realsize"))
        import models as realsize_models  # noqa: E402  (the exporter's builder: same seeded weights)

        module, args = realsize_models.build(name)
    else:
        raise ValueError(f"unknown eager spec {spec['eager']}")
    build_s = time.perf_counter() - t0
    # The re-created inputs must be the ones the .pte runtimes are given (the committed .npy).
    import numpy as np
    from torch.utils import _pytree as pytree

    leaves, _ = pytree.tree_flatten(args)
    match = len(leaves) == len(spec["inputs"])
    for v, d in zip(leaves, spec["inputs"]):
        if d["kind"] == "tensor":
            match = match and isinstance(v, torch.Tensor) and np.array_equal(v.numpy(), np.load(d["path"]))
        else:
            match = match and v == d["value"]
    return build_s, module, args, match


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", required=True, choices=["ours-py", "upstream", "eager"])
    ap.add_argument("--spec", required=True, help="JSON: pte, data, method, inputs, goldens, atol, rtol, eager")
    a = ap.parse_args()
    spec = json.loads(a.spec)
    rt = a.runtime
    extra = {}

    try:
        import numpy as np

        if rt == "ours-py":
            import executorch_runtime as et

            extra["module_file"] = et.__file__
            rss0 = status_kb("VmRSS")
            inputs = [load_value(d, np) for d in spec["inputs"]]
            t0, c0 = time.perf_counter(), time.process_time()
            program = et.load(spec["pte"], data_path=spec.get("data"))
            method = program.load_method(spec["method"])
            load_s, load_c = time.perf_counter() - t0, time.process_time() - c0
            extra["prepared_bytes"] = method.prepared_bytes

            def call():
                return method(*inputs)

            def to_np(outs):
                return list(outs)
        else:
            import torch

            threads = int(spec.get("threads", 1))  # 1 unless a multi-thread row
            torch.set_num_threads(threads)
            try:
                torch.set_num_interop_threads(1)
            except RuntimeError:
                pass
            extra["torch_threads"] = torch.get_num_threads()
            if rt == "upstream":
                from executorch.extension.pybindings import portable_lib
                from executorch.runtime import Runtime, Verification

                portable_lib._unsafe_reset_threadpool(threads)
                extra["upstream_threadpool"] = portable_lib._threadpool_get_thread_count()
                runtime = Runtime.get()
                rss0 = status_kb("VmRSS")
                inputs = [torch.from_numpy(v) if isinstance(v, np.ndarray) else v
                          for v in (load_value(d, np) for d in spec["inputs"])]
                t0, c0 = time.perf_counter(), time.process_time()
                program = runtime.load_program(spec["pte"], verification=Verification.Minimal,
                                               data_path=spec.get("data"))
                method = program.load_method(spec["method"])
                load_s, load_c = time.perf_counter() - t0, time.process_time() - c0

                def call():
                    return method.execute(inputs)

                def to_np(outs):
                    return [o.numpy() if isinstance(o, torch.Tensor) else o for o in outs]
            else:
                rss0 = status_kb("VmRSS")
                c0 = time.process_time()
                load_s, module, args, match = make_eager(spec, torch)
                load_c = time.process_time() - c0
                extra["inputs_match_manifest"] = match

                # One inference_mode for the whole process (entering it per call would add
                # its own microseconds to the tiny programs).
                _im = torch.inference_mode()
                _im.__enter__()

                def call():
                    return module(*args)

                def to_np(out):
                    return flatten_outputs(out, torch)

        t0, c0 = time.perf_counter(), time.process_time()
        outs = call()
        first_s, first_c = time.perf_counter() - t0, time.process_time() - c0
        correct, err, note = (None, None, "")
        if spec.get("goldens"):
            correct, err, note = compare(to_np(outs), spec["goldens"], spec["atol"], spec["rtol"], np)
    except Exception as e:  # noqa: BLE001
        emit({"ok": False, "error": f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"})
        return 0
    emit({"ok": True, "load_ms": load_s * 1e3, "load_cpu_ms": load_c * 1e3, "first_ms": first_s * 1e3,
          "first_cpu_ms": first_c * 1e3, "correct": correct,
          "max_abs_err": err, "note": note, "rss_before_load_kb": rss0, **extra})

    perf, cpu = time.perf_counter, time.process_time
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "run":
            n = int(parts[1])
            times, cpus = [], []
            try:
                for _ in range(n):
                    s, c = perf(), cpu()
                    call()
                    e, ce = perf(), cpu()
                    times.append((e - s) * 1e3)
                    cpus.append((ce - c) * 1e3)
                emit({"times_ms": times, "cpu_ms": cpus})
            except Exception as e:  # noqa: BLE001
                emit({"error": f"{type(e).__name__}: {e}"})
        elif parts[0] == "rss":
            emit({"peak_rss_kb": status_kb("VmHWM"), "rss_kb": status_kb("VmRSS")})
        elif parts[0] == "quit":
            break
        else:
            emit({"error": "unknown command"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
