#!/usr/bin/env python3
"""Side-by-side benchmark: our runtime (C++ Module/Method and Python bindings), upstream
ExecuTorch's Python runtime (executorch 1.5.1) and eager PyTorch 2.13, on every zoo program.

    python3 bench/harness/bench.py [--quick] --build build --venv build/zoo-venv
    (make bench / make bench-quick run it; see mk/bench-harness.mk)

Method
- Every runtime runs in its own worker process (et_bench for our C++ runtime; worker.py for the
  others), so peak RSS is per runtime. All workers are pinned to one core, with OMP/MKL/OpenBLAS
  threads at 1, torch.set_num_threads(1), inference_mode, and upstream's threadpool at 1.
- Per program and method, a "set" starts one worker per runtime, one after the other; each
  worker times its load (file to first method ready) and first execution at start. Then, after a
  warm-up, rounds run A B C D A B C D ...: each round asks every worker in turn for a batch of
  executions, each execution timed. Several sets (fresh processes) give the load/first figures
  their own medians. Figures are medians; ratios are ratios of medians (time of the first named
  runtime over the second: below 1 means faster).
- Timing is process CPU time (all threads), with wall time kept in the JSON: this machine has
  2 cores shared with builds, and the wall clock also counts time a process was descheduled.
- Every runtime's first outputs are checked against the zoo goldens (a fast wrong answer is not
  a result); the eager column re-creates each module with the exporter's own builders and seed
  (test/zoo/export_zoo.py) and checks that its inputs equal the committed .npy inputs.

Quick mode (`make check`): one set, two rounds of two executions, a subset of the programs, no
chart; ours always, upstream/eager only when the zoo venv exists ("skipped: no zoo venv"
otherwise). It asserts nothing about speed, only that each measurement produced a number, and
ends with "N passed, N failed".
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import selectors
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import realsize_section  # noqa: E402  (next to this file; the real-size section)

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
ZOO = REPO / "test" / "fixtures" / "zoo"
CHAIN_DIR = HERE / "data"
ZOO_SHAPES = HERE / "data" / "zoo_shapes.txt"  # bench/harness/zoo_shapes.py writes it

RUNTIMES = ["ours-cpp", "ours-py", "upstream", "eager"]
LABELS = {"ours-cpp": "ours C++", "ours-py": "ours Python", "upstream": "upstream Python",
          "eager": "eager torch"}
PAIRS = [("ours-cpp", "upstream"), ("ours-py", "upstream"), ("ours-cpp", "eager"),
         ("ours-py", "eager"), ("upstream", "eager")]
# In quick mode upstream and eager (a torch process each, seconds to start) run only on these.
QUICK_TORCH_ITEMS = {"mlp", "add_chain_1", "add_chain_1000"}
QUICK_PROGRAMS = ["mlp", "cnn", "llama_tiny", "multi_method", "prim_inputs", "external_constants",
                  "dynamic_shape", "constant_methods", "identity", "mlp_xnnpack"]
THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
              "VECLIB_MAXIMUM_THREADS": "1", "NUMEXPR_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1",
              "TOKENIZERS_PARALLELISM": "false"}


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def log(msg: str) -> None:
    print(msg, flush=True)


# ----------------------------------------------------------------------------------------------
# Workers


class WorkerError(RuntimeError):
    pass


class Worker:
    """A worker process speaking the one-JSON-line-per-command protocol."""

    def __init__(self, argv: List[str], env: Dict[str, str], logpath: Path, cpu: Optional[int],
                 timeout: float) -> None:
        self.timeout = timeout
        logpath.parent.mkdir(parents=True, exist_ok=True)
        self.errf = open(logpath, "ab")
        cpus = set(cpu) if isinstance(cpu, (list, tuple, set)) else {cpu}  # several for multi-thread rows
        pre = (lambda: os.sched_setaffinity(0, cpus)) if cpu is not None else None
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errf,
                                  env=env, cwd=str(REPO), preexec_fn=pre)
        self.buf = b""
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.p.stdout, selectors.EVENT_READ)

    def read(self) -> Dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                line = line.strip()
                if line.startswith(b"{"):  # stray library output on stdout is skipped
                    try:
                        return json.loads(line)
                    except json.JSONDecodeError:
                        pass
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                self.kill()
                raise WorkerError(f"no answer within {self.timeout:.0f} s")
            chunk = os.read(self.p.stdout.fileno(), 1 << 16)
            if not chunk:
                rc = self.p.wait()
                raise WorkerError(f"worker exited (code {rc}); see {self.errf.name}")
            self.buf += chunk

    def ask(self, cmd: str) -> Dict[str, Any]:
        try:
            self.p.stdin.write((cmd + "\n").encode())
            self.p.stdin.flush()
        except BrokenPipeError as e:
            raise WorkerError("worker gone") from e
        return self.read()

    def close(self) -> None:
        try:
            if self.p.poll() is None:
                self.p.stdin.write(b"quit\n")
                self.p.stdin.flush()
                self.p.wait(timeout=30)
        except Exception:  # noqa: BLE001
            self.kill()
        self.errf.close()

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def log_hint(w: "Worker") -> str:
    """The most telling line of a failed worker's stderr (a runtime's own error message)."""
    try:
        w.errf.flush()
        lines = [l.strip() for l in Path(w.errf.name).read_text(errors="replace").splitlines() if l.strip()]
    except (OSError, AttributeError):
        return ""
    for key in ("missing operator", "not registered", "Error", "error"):
        hits = [l for l in lines if key in l]
        if hits:
            return " [" + re.sub(r"^[EWI] [\d:.]+ ", "", hits[0])[:240] + "]"
    return ""


class Env:
    def __init__(self, a: argparse.Namespace) -> None:
        self.build = Path(a.build).resolve()
        self.venv_python = Path(a.venv).resolve() / "bin" / "python"
        self.has_venv = self.venv_python.exists()
        self.et_bench = self.build / "bench" / "harness" / "et_bench"
        self.pystage = self.build / "python"
        self.has_ours_cpp = self.et_bench.exists()
        self.has_ours_py = any((self.pystage / "executorch_runtime").glob("_C*.so"))
        self.cpu = a.cpu
        self.logdir = self.build / "bench" / "logs"
        self.timeout = a.timeout
        self.base_env = {k: v for k, v in os.environ.items()}
        self.base_env.update(THREAD_ENV)

    def available(self, rt: str) -> Optional[str]:
        """None when the runtime can run, else why not."""
        if rt == "ours-cpp":
            return None if self.has_ours_cpp else f"not available: {self.et_bench} not built"
        if rt == "ours-py":
            return None if self.has_ours_py else f"not available: bindings not staged in {self.pystage}"
        return None if self.has_venv else "skipped: no zoo venv"

    def argv_env(self, rt: str, spec: Dict[str, Any]):
        env = dict(self.base_env)
        threads = int(spec.get("threads", 1))
        if threads != 1:  # multi-thread rows (bench/harness/realsize_section.py); worker.py reads spec
            env.update({k: str(threads) for k in THREAD_ENV if k.endswith("_THREADS")})
        env["ET_NUM_THREADS"] = str(threads)  # our runtime's kernel thread count
        if rt == "ours-cpp":
            argv = [str(self.et_bench), "--pte", spec["pte"], "--method", spec["method"],
                    "--atol", repr(spec["atol"]), "--rtol", repr(spec["rtol"])]
            if spec.get("data"):
                argv += ["--data", spec["data"]]
            for flag, vals in (("--input", spec["inputs"]), ("--golden", spec["goldens"])):
                for d in vals:
                    argv += [flag, value_arg(d)]
            # Python dlopens extensions with RTLD_NOW, so the Python runtimes bind every symbol
            # of their libraries at import, before the timed load. The same for the C++ driver:
            # otherwise its load alone would include lazy PLT binding (about 25 us on mlp).
            env["LD_BIND_NOW"] = "1"
            return argv, env
        worker = str(HERE / "worker.py")
        if rt == "ours-py":
            env["PYTHONPATH"] = str(self.pystage) + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
            return [sys.executable, worker, "--runtime", rt, "--spec", json.dumps(spec)], env
        env.pop("PYTHONPATH", None)
        return [str(self.venv_python), worker, "--runtime", rt, "--spec", json.dumps(spec)], env

    def start(self, rt: str, spec: Dict[str, Any], tag: str) -> Worker:
        argv, env = self.argv_env(rt, spec)
        return Worker(argv, env, self.logdir / f"{tag}.{rt}.log", spec.get("cpus") or self.cpu, self.timeout)


def value_arg(d: Dict[str, Any]) -> str:
    if d["kind"] == "tensor":
        return "t:" + d["path"]
    v = d["value"]
    return {"int": "i:", "double": "d:", "bool": "b:"}[d["kind"]] + (str(int(v)) if d["kind"] == "bool" else repr(v))


# ----------------------------------------------------------------------------------------------
# One item: a program's method, measured on every runtime, interleaved


def base_runtime(rt: str) -> str:
    """The worker kind of a runtime name: "upstream@xnnpack" is upstream's runtime on the spec of
    spec["runtime_specs"]["upstream@xnnpack"] (another program, timed in the same rounds)."""
    return rt.split("@", 1)[0]


def measure(envr: Env, spec: Dict[str, Any], tag: str, runtimes: List[str], cfg: Dict[str, Any],
            skip: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    res: Dict[str, Any] = {}
    specs = {rt: spec.get("runtime_specs", {}).get(rt, spec) for rt in runtimes}
    for rt in runtimes:
        why = (envr.available(base_runtime(rt)) if rt != "eager" or spec.get("eager")
               else "n/a: no eager module")
        if base_runtime(rt) != rt and rt not in spec.get("runtime_specs", {}):
            why = why or "n/a: not measured in this row"
        why = why or (skip or {}).get(rt)
        res[rt] = {"status": "ok" if why is None else "skipped", "why": why, "load_ms": [], "load_cpu_ms": [],
                   "first_ms": [], "first_cpu_ms": [], "steady_ms": [], "steady_cpu_ms": [],
                   "peak_rss_kb": [], "rss_before_load_kb": [], "correct": None}
    live_rts = [rt for rt in runtimes if res[rt]["status"] == "ok"]
    for s in range(cfg["sets"]):
        order = live_rts[s % max(1, len(live_rts)):] + live_rts[:s % max(1, len(live_rts))]
        workers: Dict[str, Worker] = {}
        batch: Dict[str, int] = {}
        try:
            for rt in order:
                if res[rt]["status"] != "ok":
                    continue
                try:
                    w = envr.start(base_runtime(rt), specs[rt], f"{tag}.{rt}" if rt != base_runtime(rt) else tag)
                    hello = w.read()
                except WorkerError as e:
                    hello = {"ok": False, "error": str(e)}
                r = res[rt]
                if not hello.get("ok"):
                    r["status"], r["why"] = "error", hello.get("error", "?") + log_hint(w)
                    try:
                        w.kill()
                    except Exception:  # noqa: BLE001
                        pass
                    continue
                workers[rt] = w
                for k in ("load_ms", "load_cpu_ms", "first_ms", "first_cpu_ms", "rss_before_load_kb"):
                    r[k].append(hello.get(k))
                r["correct"] = hello.get("correct") if r["correct"] in (None, True) else r["correct"]
                for k in ("note", "max_abs_err", "inputs_match_manifest", "upstream_threadpool", "torch_threads",
                          "prepared_bytes"):
                    if hello.get(k) not in (None, ""):
                        r[k] = hello[k]
            # warm-up, and a batch size per runtime from its warm-up speed
            for rt, w in list(workers.items()):
                ans = w.ask(f"run {cfg['warmup']}")
                if "error" in ans:
                    res[rt]["status"], res[rt]["why"] = "error", ans["error"]
                    w.kill()
                    del workers[rt]
                    continue
                t = max(1e-4, med(ans["cpu_ms"]) or 1e-4)
                batch[rt] = int(min(cfg["max_batch"], max(cfg["min_batch"], cfg["batch_ms"] / t)))
            for _ in range(cfg["rounds"]):
                for rt in order:
                    w = workers.get(rt)
                    if w is None:
                        continue
                    ans = w.ask(f"run {batch[rt]}")
                    if "error" in ans:
                        res[rt]["status"], res[rt]["why"] = "error", ans["error"]
                        w.kill()
                        del workers[rt]
                        continue
                    res[rt]["steady_ms"] += ans["times_ms"]
                    res[rt]["steady_cpu_ms"] += ans["cpu_ms"]
            for rt, w in workers.items():
                res[rt]["peak_rss_kb"].append(w.ask("rss").get("peak_rss_kb"))
        except WorkerError as e:
            for rt, w in workers.items():
                if w.p.poll() is not None and res[rt]["status"] == "ok":
                    res[rt]["status"], res[rt]["why"] = "error", str(e)
        finally:
            for w in workers.values():
                w.close()
    out: Dict[str, Any] = {}
    for rt, r in res.items():
        o = {k: v for k, v in r.items() if not isinstance(v, list)}
        for k in ("load_ms", "load_cpu_ms", "first_ms", "first_cpu_ms", "steady_ms", "steady_cpu_ms",
                  "peak_rss_kb", "rss_before_load_kb"):
            o[k] = med(r[k])
        o["n_steady"] = len(r["steady_cpu_ms"])
        if r["steady_cpu_ms"]:
            q = statistics.quantiles(r["steady_cpu_ms"], n=4) if len(r["steady_cpu_ms"]) > 1 else [o["steady_cpu_ms"]] * 3
            o["steady_cpu_iqr_ms"] = [q[0], q[2]]
        if o["status"] == "ok" and o["correct"] is False:
            o["status"] = "wrong"
        out[rt] = o
    ratios = {}
    for a, b in PAIRS:
        ra, rb = out.get(a, {}), out.get(b, {})
        for k in ("steady_cpu_ms", "first_cpu_ms", "load_cpu_ms", "peak_rss_kb"):
            if ra.get(k) and rb.get(k) and ra.get("status") == "ok" and rb.get("status") == "ok":
                if k == "load_cpu_ms" and b == "eager":
                    continue  # eager's "load" is building the module: not comparable
                ratios[f"{a}/{b}:{k}"] = ra[k] / rb[k]
    return {"runtimes": out, "ratios": ratios}


def zoo_items(manifest: Dict[str, Any], only: Optional[List[str]]) -> List[Dict[str, Any]]:
    items = []
    for p in manifest["programs"]:
        if only and p["name"] not in only:
            continue
        compute = [m for m in p["methods"] if m["kind"] == "compute"]
        for m in compute:
            call = m["calls"][0]

            def desc(d):
                if d["kind"] == "tensor":
                    return {"kind": "tensor", "path": str(ZOO / d["file"])}
                return {"kind": d["kind"], "value": d["value"]}

            items.append({
                "name": p["name"] if len(compute) == 1 else f"{p['name']}.{m['name']}",
                "group": p["kind"], "program": p["name"], "instructions": m["num_instructions"],
                "spec": {"pte": str(ZOO / p["file"]),
                         "data": str(ZOO / p["data_files"][0]) if p["data_files"] else None,
                         "method": m["name"], "inputs": [desc(d) for d in call["inputs"]],
                         "goldens": [desc(d) for d in call["outputs"]],
                         "atol": p["tolerance"]["atol"], "rtol": p["tolerance"]["rtol"],
                         "eager": f"zoo:{p['name']}"},
            })
    return items


def chain_items() -> List[Dict[str, Any]]:
    items = []
    for n in (1, 1000):
        pte = CHAIN_DIR / f"add_chain_{n}.pte"
        items.append({"name": f"add_chain_{n}", "group": "dispatch", "instructions": n, "spec": {
            "pte": str(pte), "data": None, "method": "forward",
            "inputs": [{"kind": "tensor", "path": str(CHAIN_DIR / f"add_chain_{n}.in{i}.npy")} for i in range(2)],
            "goldens": [{"kind": "tensor", "path": str(CHAIN_DIR / f"add_chain_{n}.out0.npy")}],
            "atol": 1e-5, "rtol": 1e-5, "eager": f"chain:{n}"}})
    return items


# ----------------------------------------------------------------------------------------------
# Micro-benchmarks run as separate commands


def run_cmd(argv, env=None, timeout=900, cwd=None) -> Dict[str, Any]:
    t0 = time.time()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd or str(REPO))
        return {"rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr[-4000:], "secs": time.time() - t0}
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"rc": -1, "stdout": "", "stderr": str(e), "secs": time.time() - t0}


def sgemm_micro(envr: Env, quick: bool) -> Dict[str, Any]:
    binp = envr.build / "bench" / "sgemm_bench"
    if not binp.exists():
        return {"status": "not available", "why": f"{binp} not built (make bench-sgemm)"}
    argv = [str(binp)] + (["--size", "128", "--rounds", "1"] if quick else ["--rounds", "7"])
    if ZOO_SHAPES.exists():
        argv += ["--shapes", str(ZOO_SHAPES)]
    if envr.cpu is not None:
        argv = ["taskset", "-c", str(envr.cpu)] + argv if shutil.which("taskset") else argv
    r = run_cmd(argv, env=envr.base_env)
    out = {"status": "ok" if r["rc"] == 0 else "error", "command": " ".join(os.path.relpath(x, REPO) if x.startswith(str(REPO)) else x for x in argv), "raw": r["stdout"],
           "why": r["stderr"].strip()[-500:] if r["rc"] else None}
    return parse_sgemm(out)


def parse_sgemm(out: Dict[str, Any]) -> Dict[str, Any]:
    """Reads sgemm_bench's tables (its printed format) into out["sgemm"] and out["conv"]."""
    r = {"stdout": out.get("raw", "")}
    sg, conv = [], []
    m = re.search(r"^SGEMM (\d+)x(\d+)x(\d+)", r["stdout"], re.M)
    if m:
        out["size"] = [int(x) for x in m.groups()]
    for line in r["stdout"].splitlines():
        t = line.split()
        if len(t) >= 7 and t[0] in ("baseline", "avx2", "avx512") and t[3].endswith("%"):
            sg.append({"isa": t[0], "peak": float(t[1]), "nn": float(t[2]), "nn_pct": float(t[3][:-1]),
                       "nt": float(t[4]), "nt_pct": float(t[5][:-1]), "nn_pct_best": float(t[6][:-1])})
        mc = re.match(r"\s+(.+?)\s+([\d.]+) \(\s*([\d.]+)\)\s+([\d.]+) \(\s*([\d.]+)\)\s+([\d.]+)x", line)
        if mc:
            conv.append({"shape": mc.group(1), "ms": float(mc.group(2)), "gflops": float(mc.group(3)),
                         "naive_ms": float(mc.group(4)), "naive_gflops": float(mc.group(5))})
    out["sgemm"], out["conv"] = sg, conv
    if out["status"] == "ok" and not sg:
        out["status"], out["why"] = "error", "could not parse the SGEMM table"
    if "--shapes" in out.get("command", ""):
        shapes = read_zoo_shapes()
        out["zoo_shapes"] = parse_zoo_shapes(r["stdout"], shapes)
        if out["status"] == "ok" and len(out["zoo_shapes"]) != len(shapes):
            out["status"], out["why"] = "error", (f"{len(out['zoo_shapes'])} zoo shape results for "
                                                  f"{len(shapes)} shapes in {ZOO_SHAPES.name}")
    return out


def read_zoo_shapes() -> List[Dict[str, Any]]:
    """The shape file (bench/harness/zoo_shapes.py writes it): kind, numbers, description, users."""
    rows = []
    for line in ZOO_SHAPES.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, desc, users = (line.split("|") + ["", ""])[:3]
        kind, *nums = head.split()
        rows.append({"kind": kind, "nums": [int(x) for x in nums], "desc": desc.strip(), "users": users.strip()})
    return rows


def parse_zoo_shapes(stdout: str, shapes: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """sgemm_bench's per-shape lines, joined with the shape file's descriptions by index."""
    out = []
    for m in re.finditer(r"^\s+\[\s*(\d+)\] (gemm|conv) ([\d ]+?)\s+([\d.]+) \(\s*([\d.]+)\)\s*$", stdout, re.M):
        i = int(m.group(1))
        if i < len(shapes) and [int(x) for x in m.group(3).split()] == shapes[i]["nums"]:
            out.append({**shapes[i], "us": float(m.group(4)), "gflops": float(m.group(5))})
    return out


TORCH_REF = r"""
import json, re, sys, time, statistics, torch, torch.nn.functional as F
torch.set_num_threads(1)
args = json.loads(sys.argv[1]); out = {}
def t(fn, budget):
    fn(); reps = 0; best = []
    for _ in range(args["rounds"]):
        n = 0; s = time.process_time()
        while True:
            for _ in range(8): fn()  # eight calls per clock read: the read costs about a small call's time
            n += 8
            e = time.process_time() - s
            if e > budget: break
        best.append(e / n)
    return statistics.median(best)
with torch.inference_mode():
    m = args["size"]; a = torch.randn(m, m); b = torch.randn(m, m)
    s = t(lambda: torch.mm(a, b), args["budget"]); out["sgemm_gflops"] = 2 * m**3 / s * 1e-9
    out["conv"] = {}
    for name in args["conv"]:
        g = re.match(r"(\w+) (\d+)x\d+ (?:s(\d+) )?(\d+)(?:->(\d+))? @(\d+)", name)
        if not g: continue
        kind, k, st, ci, co, hw = g.groups(); k, st, ci, hw = int(k), int(st or 1), int(ci), int(hw)
        co = int(co) if co else ci; groups = ci if kind == "dw" else 1
        x = torch.randn(1, ci, hw, hw); w = torch.randn(co, ci // groups, k, k); bias = torch.randn(co)
        f = lambda: F.conv2d(x, w, bias, stride=st, padding=k // 2, groups=groups)
        oh = f().shape[-1]
        fl = 2.0 * co * oh * oh * (ci // groups) * k * k
        s = t(f, args["budget"]); out["conv"][name] = {"ms": s * 1e3, "gflops": fl / s * 1e-9}
    out["zoo"] = []
    for kind, v in args["zoo"]:
        if kind == "gemm":
            m_, n_, k_ = v; a = torch.randn(m_, k_); w = torch.randn(n_, k_)
            f = lambda: F.linear(a, w); fl = 2.0 * m_ * n_ * k_
        else:
            nb, ci, h, wd, co, kh, kw, sh, sw, ph, pw, dh, dw, g = v
            x = torch.randn(nb, ci, h, wd); w = torch.randn(co, ci // g, kh, kw); bias = torch.randn(co)
            f = lambda: F.conv2d(x, w, bias, stride=(sh, sw), padding=(ph, pw), dilation=(dh, dw), groups=g)
            o = f(); fl = 2.0 * o.numel() * (ci // g) * kh * kw
        s = t(f, args["budget"]); out["zoo"].append({"us": s * 1e6, "gflops": fl / s * 1e-9})
print(json.dumps(out))
"""


def torch_compute_ref(envr: Env, sg: Dict[str, Any], quick: bool) -> Dict[str, Any]:
    if not envr.has_venv:
        return {"status": "skipped: no zoo venv"}
    args = {"size": (sg.get("size") or [512])[0], "rounds": 1 if quick else 5, "budget": 0.02 if quick else 0.1,
            "conv": [c["shape"] for c in sg.get("conv", [])],
            "zoo": [[z["kind"], z["nums"]] for z in sg.get("zoo_shapes", [])]}
    argv = [str(envr.venv_python), "-c", TORCH_REF, json.dumps(args)]
    if envr.cpu is not None and shutil.which("taskset"):
        argv = ["taskset", "-c", str(envr.cpu)] + argv
    env = dict(envr.base_env)
    env.pop("PYTHONPATH", None)
    r = run_cmd(argv, env=env)
    try:
        return {"status": "ok", **json.loads(r["stdout"].strip().splitlines()[-1])}
    except (ValueError, IndexError):
        return {"status": "error", "why": r["stderr"][-500:]}


IMPORT_SNIPPET = "import time; t=time.perf_counter(); c=time.process_time(); import {mod}; " \
                 "print(time.perf_counter()-t, time.process_time()-c)"


def import_micro(envr: Env, rounds: int) -> Dict[str, Any]:
    cases = {}
    if envr.has_ours_py:
        env = dict(envr.base_env)
        env["PYTHONPATH"] = str(envr.pystage)
        cases["executorch_runtime"] = ([sys.executable, "-c", IMPORT_SNIPPET.format(mod="executorch_runtime")], env)
    if envr.has_venv:
        env = dict(envr.base_env)
        env.pop("PYTHONPATH", None)
        cases["executorch.runtime"] = ([str(envr.venv_python), "-c", IMPORT_SNIPPET.format(mod="executorch.runtime")], env)
        cases["executorch.runtime + Runtime.get()"] = (
            [str(envr.venv_python), "-c", IMPORT_SNIPPET.format(mod="executorch.runtime; executorch.runtime.Runtime.get()")], env)
        cases["torch"] = ([str(envr.venv_python), "-c", IMPORT_SNIPPET.format(mod="torch")], env)
    res = {k: {"wall": [], "cpu": [], "proc_wall": []} for k in cases}
    for _ in range(rounds):  # interleaved: A B C A B C ...
        for k, (argv, env) in cases.items():
            t0 = time.perf_counter()
            r = run_cmd(argv, env=env, timeout=300)
            pw = time.perf_counter() - t0
            try:
                w, c = (float(x) for x in r["stdout"].split()[-2:])
                res[k]["wall"].append(w * 1e3)
                res[k]["cpu"].append(c * 1e3)
                res[k]["proc_wall"].append(pw * 1e3)
            except ValueError:
                res[k]["error"] = r["stderr"].strip().splitlines()[-1] if r["stderr"].strip() else "no output"
    out = {}
    for k, v in res.items():
        out[k] = {"import_ms": med(v["wall"]), "import_cpu_ms": med(v["cpu"]),
                  "process_ms": med(v["proc_wall"]), "n": len(v["wall"]), "error": v.get("error")}
    out["_missing"] = ([] if envr.has_ours_py else ["executorch_runtime: bindings not built"]) + \
                      ([] if envr.has_venv else ["executorch.runtime: skipped: no zoo venv"])
    return out


def stripped_size(path: Path) -> Optional[int]:
    import tempfile

    with tempfile.TemporaryDirectory() as td:
        dst = Path(td) / "s"
        r = subprocess.run(["strip", "--strip-all", "-o", str(dst), str(path)], capture_output=True)
        return dst.stat().st_size if r.returncode == 0 else None


def size_micro(envr: Env) -> Dict[str, Any]:
    rows = []
    lib = envr.build / "lib"
    for name, what in (("libexecutorch.so.1", "runtime"), ("libexecutorch_kernels.so.1", "kernels")):
        p = lib / name
        if p.exists():
            p = p.resolve()
            rows.append({"side": "ours", "what": what, "file": p.name, "bytes": p.stat().st_size,
                         "stripped": stripped_size(p)})
        else:
            rows.append({"side": "ours", "what": what, "file": name, "bytes": None, "stripped": None,
                         "why": "not built"})
    for p in sorted((envr.pystage / "executorch_runtime").glob("_C*.so")):
        rows.append({"side": "ours", "what": "python extension", "file": p.name, "bytes": p.stat().st_size,
                     "stripped": stripped_size(p)})
    if envr.has_venv:
        sp = next(iter(sorted(envr.venv_python.parent.parent.glob("lib/python3*/site-packages/executorch"))), None)
        if sp is not None:
            want = [("lib/libexecutorch.so", "runtime"), ("lib/libexecutorch_kernels_optimized.so", "kernels"),
                    ("lib/libexecutorch_threadpool.so", "threadpool (kernels need it)"),
                    ("extension/pybindings/_C.cpython-311-x86_64-linux-gnu.so", "python extension"),
                    ("lib/libexecutorch_backend_xnnpack.so", "XNNPACK backend (extension links it)")]
            for rel, what in want:
                p = sp / rel
                if p.exists():
                    rows.append({"side": "upstream", "what": what, "file": p.name, "bytes": p.stat().st_size,
                                 "stripped": stripped_size(p)})
    return {"rows": rows}


# Figures parsed out of the runtime benchmarks' text output (bench/dispatch_bench.cpp,
# bench/load_bench.cpp): key -> pattern with one number group.
RUNTIME_BENCH_FIGURES = {
    "dispatch_bench": {
        "execute_ns": r"Method::execute\s+([0-9.]+) ns/instruction",
        "direct_ns": r"direct call loop\s+([0-9.]+) ns/call",
        "overhead_ns": r"dispatch overhead\s+(-?[0-9.]+) ns/instruction",
    },
    "load_bench": {
        "file_mb": r"load_bench: \S+, ([0-9.]+) MB",
        "program_us": r"mmap \+ Program::load\s+([0-9.]+) us",
        "method_us": r"load_method\s+([0-9.]+) us",
        "total_us": r"total\s+([0-9.]+) us",
        "rss_growth_kb": r"RSS growth during load\s+(-?[0-9.]+) KB",
        "constants_kb": r"\(constants: ([0-9]+) KB\)",
    },
}


def parse_figures(name: str, text: str) -> Dict[str, Optional[float]]:
    figs: Dict[str, Optional[float]] = {}
    for key, pat in RUNTIME_BENCH_FIGURES.get(name, {}).items():
        m = re.search(pat, text)
        figs[key] = float(m.group(1)) if m else None
    if name == "load_bench":
        figs["in_place"] = "pointers inside the file mapping): yes" in text
        figs["no_copy_rss"] = "RSS did not grow by the constant size: yes" in text
    return figs


def others_micro(envr: Env, quick: bool) -> Dict[str, Any]:
    """The runtime benchmarks in bench/ (built by make bench with the rest of ours): their figures
    are parsed for the report and their output kept verbatim."""
    out = {}
    for name, path in (
        ("dispatch_bench", envr.build / "bench" / "dispatch_bench"),
        ("load_bench", envr.build / "bench" / "load_bench"),
        ("python_overhead.py", REPO / "bench" / "python_overhead.py"),
    ):
        if not path.exists():
            out[name] = {"status": "not available", "why": f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path} is not built"}
            continue
        env = dict(envr.base_env)
        if path.suffix == ".py":
            env["PYTHONPATH"] = str(envr.pystage)
            argv = [sys.executable, str(path)] + (["--iterations", "200"] if quick else [])
            shown = ["python3", os.path.relpath(path, REPO)] + argv[2:]
        else:
            argv = [str(path)] + (["--quick"] if quick else [])
            shown = [os.path.relpath(path, REPO)] + argv[1:]
        if envr.cpu is not None and shutil.which("taskset"):  # pinned, like every other worker
            argv = ["taskset", "-c", str(envr.cpu)] + argv
            shown = ["taskset", "-c", str(envr.cpu)] + shown
        r = run_cmd(argv, env=env, timeout=600)
        v = {"status": "ok" if r["rc"] == 0 else "error", "command": " ".join(shown),
             "raw": r["stdout"][-6000:], "why": r["stderr"][-500:] if r["rc"] else None}
        if name in RUNTIME_BENCH_FIGURES:
            v["figures"] = parse_figures(name, r["stdout"])
            missing = [k for k, x in v["figures"].items() if x is None]
            if v["status"] == "ok" and missing:
                v.update({"status": "error", "why": "figures not found in its output: " + ", ".join(missing)})
        out[name] = v
    return out


def profile_slowest(envr: Env, items, results) -> Dict[str, Any]:
    best, best_t = None, -1.0
    for it in items:
        r = results[it["name"]]["runtimes"].get("ours-cpp", {})
        if it["group"] == "model" and r.get("status") == "ok" and (r.get("steady_cpu_ms") or 0) > best_t:
            best, best_t = it, r["steady_cpu_ms"]
    if best is None:
        return {"status": "not available", "why": "our C++ runtime ran no model"}
    out = {"model": best["name"], "steady_cpu_ms": best_t,
           "reproduce": f"make O={os.path.relpath(envr.build, REPO)} && {os.path.relpath(envr.build, REPO)}/bin/et_run --profile --warmup 5 --iterations 20 "
                        f"{os.path.relpath(best['spec']['pte'], REPO)}"}
    # et_bench loads a second Module with an EventTracer attached and aggregates its events.
    w = envr.start("ours-cpp", best["spec"], "profile")
    try:
        hello = w.read()
        ev = w.ask("profile 20").get("events", []) if hello.get("ok") else []
    finally:
        w.close()
    if ev:
        out.update({"source": "et_bench EventTracer", "status": "ok",
                    "events": sorted(ev, key=lambda e: -e[2])})
    else:
        out.update({"status": "not available",
                    "why": "et_bench's traced Module recorded no events (load or execute failed, or the "
                           "runtime emitted none)"})
    return out


# ----------------------------------------------------------------------------------------------
# Report


def machine_info(envr: Env) -> Dict[str, Any]:
    info = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "host_python": platform.python_version(), "kernel": platform.release(), "nproc": os.cpu_count()}
    try:
        cpu = [l for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")]
        info["cpu"] = cpu[0].split(":", 1)[1].strip() if cpu else platform.processor()
        flags = [l for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("flags")][0]
        info["isa"] = " ".join(f for f in ("avx2", "fma", "avx512f") if f" {f}" in flags)
        mem = [l for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal")][0]
        info["mem_gib"] = round(int(mem.split()[1]) / 2**20, 1)
        info["loadavg_start"] = Path("/proc/loadavg").read_text().split()[:3]
    except (OSError, IndexError):
        pass
    r = run_cmd(["git", "rev-parse", "--short", "HEAD"], timeout=30)
    info["git"] = r["stdout"].strip()
    man = json.loads((ZOO / "manifest.json").read_text())
    info["zoo_versions"] = {k: man["versions"].get(k) for k in ("python", "torch", "executorch")}
    return info


def fmt_t(ms: Optional[float]) -> str:
    if ms is None:
        return "-"
    if ms < 1:
        return f"{ms * 1e3:.1f} µs"
    if ms < 1000:
        return f"{ms:.3g} ms" if ms < 100 else f"{ms:.0f} ms"
    return f"{ms / 1e3:.2f} s"


def cell(r: Dict[str, Any], key: str, kind: str = "t") -> str:
    if r.get("status") in ("skipped", "error") or r.get(key) is None:
        why = r.get("why") or "-"
        return "n/a" if r.get("status") == "error" else ("skipped" if "skipped" in why else "n/a")
    v = r[key]
    s = fmt_t(v) if kind == "t" else f"{v / 1024:.0f} MB"
    return s + (" (wrong)" if r.get("status") == "wrong" else "")


def write_report(path: Path, data: Dict[str, Any], commands: List[str]) -> None:
    L: List[str] = []
    mi = data["machine"]
    rts = data["runtimes"]
    L += ["# Benchmarks: our runtime vs upstream ExecuTorch vs eager PyTorch", "",
          f"Written by `make bench` ({'quick mode' if data['quick'] else 'full run'}) on {mi['date']}, "
          f"commit `{mi.get('git', '?')}`. Do not edit by hand.", "",
          "## Machine and method", "",
          f"- CPU: {mi.get('cpu', '?')} ({mi.get('nproc')} cores, {mi.get('isa', '')}), {mi.get('mem_gib', '?')} GiB, "
          f"Linux {mi.get('kernel')}; load average at start {' '.join(mi.get('loadavg_start', []))} "
          "(a shared machine: see the note on CPU time).",
          f"- Runtimes: **ours C++** = `{rts['ours-cpp']}`; **ours Python** = `executorch_runtime` under "
          f"python {mi['host_python']}; **upstream** = `executorch.runtime` {mi['zoo_versions']['executorch']} "
          f"(its Python runtime, portable/optimized kernels); **eager** = torch {mi['zoo_versions']['torch']} "
          "with `set_num_threads(1)` and `inference_mode()`, the module re-created with the exporter's own "
          "builder and seed.",
          "- Single thread everywhere: every worker pinned to one core, OMP/MKL/OpenBLAS threads 1, upstream's "
          "threadpool reset to 1 thread.",
          "- Symbols bound at start everywhere: Python dlopens extensions with RTLD_NOW, so the C++ driver runs "
          "with `LD_BIND_NOW=1`; otherwise only its load time would include lazy symbol binding.",
          f"- Each runtime runs in its own process (peak RSS = the process's VmHWM, interpreter and imports "
          f"included). Per program: {data['cfg']['sets']} set(s) of fresh processes started one after the other "
          f"(load and first execution timed at start), then {data['cfg']['warmup']} warm-up calls and "
          f"{data['cfg']['rounds']} interleaved rounds A B C D A B C D, each a batch of about "
          f"{data['cfg']['batch_ms']} ms of calls, every call timed. Medians; ratios are ratios of medians "
          "(time of the first runtime over the second: **below 1 = faster**).",
          "- Times are **process CPU time** (all threads): on this 2-core machine shared with builds the wall "
          "clock also counts time spent descheduled. Wall-clock medians are in the JSON.",
          "- Load = file to first method ready (`load` + `load_method`; upstream with `Verification.Minimal` "
          "like ours). For eager, 'load' is building the module and its inputs, shown but not compared.",
          "- Every runtime's first outputs are checked against the zoo goldens; '(wrong)' marks a mismatch.",
          ""]

    def table(title: str, items: List[Dict[str, Any]], key: str, kind: str, ratio_key: str, pairs) -> None:
        L.append(f"#### {title}")
        L.append("")
        hdr = ["program"] + [LABELS[r] for r in RUNTIMES] + [f"{LABELS[a].split()[0] if a != 'upstream' else 'upstream'}"
                                                            f"{' C++' if a == 'ours-cpp' else ' Py' if a == 'ours-py' else ''}"
                                                            f" / {b}" for a, b in pairs]
        L.append("| " + " | ".join(hdr) + " |")
        L.append("|" + "---|" * len(hdr))
        for it in items:
            res = data["results"][it["name"]]
            row = [it["name"]] + [cell(res["runtimes"].get(r, {}), key, kind) for r in RUNTIMES]
            for a, b in pairs:
                v = res["ratios"].get(f"{a}/{b}:{ratio_key}")
                row.append("-" if v is None else f"{v:.2f}")
            L.append("| " + " | ".join(row) + " |")
        L.append("")

    groups = [("Models", "model"), ("Runtime features", "feature"), ("Delegated (XNNPACK)", "delegated")]
    L += ["## Zoo programs", ""]
    for gname, g in groups:
        items = [it for it in data["items"] if it["group"] == g]
        if not items:
            continue
        L += [f"### {gname}", ""]
        table(f"{gname}: steady-state execution (median per call)", items, "steady_cpu_ms", "t", "steady_cpu_ms", PAIRS)
        table(f"{gname}: first execution", items, "first_cpu_ms", "t", "first_cpu_ms", PAIRS[:2] + PAIRS[2:])
        table(f"{gname}: load (file to first method ready)", items, "load_cpu_ms", "t", "load_cpu_ms",
              [("ours-cpp", "upstream"), ("ours-py", "upstream")])
        table(f"{gname}: peak RSS of the process", items, "peak_rss_kb", "kb", "peak_rss_kb",
              [("ours-cpp", "upstream"), ("ours-py", "upstream"), ("ours-py", "eager")])
    errs = [(it["name"], r, v.get("why")) for it in data["items"] for r, v in data["results"][it["name"]]["runtimes"].items()
            if v.get("status") in ("error", "wrong", "skipped")]
    if errs:
        L += ["### Not measured", "", "| program | runtime | why |", "|---|---|---|"]
        for n, r, why in errs:
            L.append(f"| {n} | {LABELS[r]} | {(why or 'outputs differ from the goldens').replace('|', '/')[:200]} |")
        L.append("")
    if data.get("chart"):
        L += [f"![per-model latency]({data['chart']})", ""]

    # ---- profile
    pr = data.get("profile", {})
    L += ["## Per-operator profile of the slowest model (ours)", ""]
    if pr.get("status") == "ok":
        L.append(f"Model: `{pr['model']}` (steady state {fmt_t(pr['steady_cpu_ms'])} CPU per call, untraced). "
                 "Wall time per call of each operator, summed over its instructions, averaged over 20 calls of a "
                 "second Module that has an EventTracer attached (et_bench `profile 20`); the Module the tables "
                 "above time has none.")
        L.append("")
        if pr.get("events"):
            total = sum(ms for _, _, ms in pr["events"]) or 1.0
            L += ["| operator | instructions per call | time per call | share |", "|---|---|---|---|"]
            for name, cnt, ms in pr["events"][:30]:
                L.append(f"| {name} | {cnt / 20:.0f} | {fmt_t(ms)} | {100 * ms / total:.1f}% |")
            L.append(f"| all operators | {sum(c for _, c, _ in pr['events']) / 20:.0f} | {fmt_t(total)} | |")
            if pr.get("reproduce"):
                L += ["", f"The same table from the command line: `{pr['reproduce']}`."]
        else:
            L += ["```", pr.get("raw", "").rstrip(), "```"]
    else:
        L.append(f"Not available: {pr.get('why', '?')}.")
    L.append("")

    # ---- micro
    L += ["## Micro-benchmarks", "", "### Dispatch: chain of 1,000 tiny adds", ""]
    d = data.get("dispatch", {})
    L += ["Programs `add_chain_1` and `add_chain_1000` (bench/harness/make_chain.py: `x = x + y` N times on "
          "4-element float tensors, exported with the upstream exporter: N `aten::add.out` instructions). "
          "Per-instruction cost = (T(1000) - T(1)) / 999 with T the median steady-state time per call in the "
          "same runtime. The subtraction removes the fixed cost of a call, which for the Python runtimes "
          "includes converting inputs and outputs; what is left is the executor's per-instruction work "
          "(argument lookup, kernel call) plus a 4-element add kernel, for each runtime. Upstream's figure "
          "is measured through its Python runtime because that is the runtime the wheel ships, and after "
          "the subtraction the Python layer no longer contributes. Eager is the same loop in PyTorch "
          "(per-op dispatch of `torch.add`).", "",
          "| runtime | T(1) | T(1000) | per instruction | vs upstream |", "|---|---|---|---|---|"]
    up = d.get("upstream", {}).get("per_instr_ns")
    for rt in RUNTIMES:
        v = d.get(rt, {})
        if v.get("per_instr_ns") is None:
            L.append(f"| {LABELS[rt]} | {v.get('why', 'n/a')} | | | |")
            continue
        ratio = f"{v['per_instr_ns'] / up:.2f}" if up else "-"
        L.append(f"| {LABELS[rt]} | {fmt_t(v['t1'])} | {fmt_t(v['t1000'])} | {v['per_instr_ns']:.0f} ns | {ratio} |")
    L.append("")
    def figure_table(v: Dict[str, Any], header: str, rows) -> List[str]:
        """A two-column table of one runtime benchmark's figures (rows: label, formatter of its
        figures), with the command, or why it is missing."""
        if v.get("status") != "ok":
            return [f"Not available: {v.get('why')}.", ""]
        fg = v["figures"]
        return ([header, "|---|---|"] + [f"| {label} | {fmt(fg)} |" for label, fmt in rows]
                + ["", f"Command: `{v['command']}`.", ""])

    others = data.get("others", {})
    L += ["The executor alone, without the add kernel's work: `bench/dispatch_bench.cpp` builds a chain of "
          "1,000 KernelCalls of a trivial registered kernel (adds 1 to a one-element tensor) and times "
          "`Method::execute` against a loop calling the same kernel function directly, interleaved, medians.", ""]
    L += figure_table(others.get("dispatch_bench", {}), "| ours C++ | ns per instruction |", [
        ("`Method::execute`", lambda f: f"{f['execute_ns']:.2f}"),
        ("direct calls of the same kernel", lambda f: f"{f['direct_ns']:.2f}"),
        ("dispatch overhead (difference)", lambda f: f"{f['overhead_ns']:.2f}")])
    L += ["### Loading a large program without copying its constants", "",
          "`bench/load_bench.cpp` writes a program whose constant segment holds 20 MB of weights, then loads it "
          "with `MmapDataLoader` + `Program::load` + `load_method` in several rounds (medians), checks that every "
          "constant tensor points into the file mapping, and compares the process's RSS growth with the "
          "constants' size.", ""]
    L += figure_table(others.get("load_bench", {}), "| figure | value |", [
        ("program file", lambda f: f"{f['file_mb']:.1f} MB ({f['constants_kb'] / 1024:.0f} MB of constants)"),
        ("mmap + `Program::load`", lambda f: f"{f['program_us']:.1f} µs"),
        ("`load_method`", lambda f: f"{f['method_us']:.1f} µs"),
        ("total, file to method ready", lambda f: f"{f['total_us']:.1f} µs"),
        ("RSS growth during load", lambda f: f"{f['rss_growth_kb']:.0f} KB"),
        ("constants used in place (inside the mapping)", lambda f: "yes" if f.get("in_place") else "NO")])

    sg = data.get("sgemm", {})
    tr = data.get("torch_ref", {})
    L += ["### SGEMM and convolution (compute core, one core)", ""]
    if sg.get("status") != "ok":
        L += [f"Not available: {sg.get('why')}.", ""]
    else:
        size = "x".join(str(x) for x in sg.get("size", []))
        L += [f"From `{sg['command']}` (bench/sgemm_bench.cpp: FMA peak measured by the same binary, "
              f"register-only multiply-add loops). Eager torch.mm / F.conv2d, single thread, on the same shapes "
              f"as the reference{'' if tr.get('status') == 'ok' else ' (' + tr.get('status', 'n/a') + ')'}.", "",
              f"| ISA | FMA peak GFLOP/s | SGEMM {size} NN GFLOP/s | % of peak | NT GFLOP/s | % of peak |",
              "|---|---|---|---|---|---|"]
        for r in sg["sgemm"]:
            L.append(f"| {r['isa']} | {r['peak']:.1f} | {r['nn']:.1f} | {r['nn_pct']:.1f}% | {r['nt']:.1f} | {r['nt_pct']:.1f}% |")
        if tr.get("status") == "ok":
            best = sg["sgemm"][-1]
            L.append(f"| torch.mm (eager) | {best['peak']:.1f} | {tr['sgemm_gflops']:.1f} | "
                     f"{100 * tr['sgemm_gflops'] / best['peak']:.1f}% | | |")
        L.append("")
        if sg.get("conv"):
            best_peak = sg["sgemm"][-1]["peak"]
            L += ["| conv2d shape | ours ms | ours GFLOP/s | % of peak | eager ms | eager GFLOP/s | ours / eager time |",
                  "|---|---|---|---|---|---|---|"]
            for c in sg["conv"]:
                e = (tr.get("conv") or {}).get(c["shape"], {})
                ratio = f"{c['ms'] / e['ms']:.2f}" if e.get("ms") else "-"
                L.append(f"| {c['shape']} | {c['ms']:.3f} | {c['gflops']:.1f} | {100 * c['gflops'] / best_peak:.1f}% | "
                         f"{e.get('ms', float('nan')):.3f} | {e.get('gflops', float('nan')):.1f} | {ratio} |")
            L.append("")
        L += ["Note: these convolution shapes are sgemm_bench's (MobileNetV2 at 224x224); the zoo's own shapes "
              "follow.", ""]
        zs = sg.get("zoo_shapes") or []
        ez = (tr.get("zoo") or []) if tr.get("status") == "ok" else []
        if zs:
            best_peak = sg["sgemm"][-1]["peak"]
            L += ["#### The zoo's shapes", "",
                  f"Every `nn.Linear` and `nn.Conv2d` call the zoo's models make (recorded by "
                  f"`bench/harness/zoo_shapes.py` into `{os.path.relpath(ZOO_SHAPES, REPO)}`), timed through the "
                  "compute core's own entry points (`sgemm`, `conv2d_nchw`: what the kernels call, best ISA) in "
                  "batches long enough to hide the clock, medians; eager is `F.linear` / `F.conv2d` on the same "
                  "shapes, one thread (its time includes PyTorch's per-call dispatch, which at these sizes is most "
                  "of it). Linear is `x[M,K] * W[N,K]^T`.", "",
                  "| shape | used by (calls per model) | ours µs | GFLOP/s | % of peak | eager µs | ours / eager time |",
                  "|---|---|---|---|---|---|---|"]
            for i, z in enumerate(zs):
                e = ez[i] if i < len(ez) else {}
                ratio = f"{z['us'] / e['us']:.2f}" if e.get("us") else "-"
                eu = f"{e['us']:.2f}" if e.get("us") else "-"
                L.append(f"| {z['desc']} | {z['users']} | {z['us']:.2f} | {z['gflops']:.1f} | "
                         f"{100 * z['gflops'] / best_peak:.1f}% | {eu} | {ratio} |")
            L.append("")

    im = data.get("imports", {})
    L += ["### Import time", "", "Fresh interpreter per sample, interleaved; time of the `import` statement alone "
          "(wall and CPU), and of the whole process (`python -c`).", "",
          "| module | import (wall) | import (CPU) | whole process (wall) |", "|---|---|---|---|"]
    for k, v in im.items():
        if k.startswith("_"):
            continue
        if v.get("import_ms") is None:
            L.append(f"| `{k}` | n/a: {v.get('error')} | | |")
        else:
            L.append(f"| `{k}` | {fmt_t(v['import_ms'])} | {fmt_t(v['import_cpu_ms'])} | {fmt_t(v['process_ms'])} |")
    for m in im.get("_missing", []):
        L.append(f"| {m} | | | |")
    if im.get("executorch_runtime", {}).get("import_ms") and im.get("executorch.runtime", {}).get("import_ms"):
        L += ["", f"Ratio ours / upstream (import, wall): "
                  f"{im['executorch_runtime']['import_ms'] / im['executorch.runtime']['import_ms']:.3f}."]
    L.append("")

    sz = data.get("sizes", {}).get("rows", [])
    L += ["### Shared library sizes (stripped with `strip --strip-all`)", "",
          "| side | what | file | on disk | stripped |", "|---|---|---|---|---|"]
    tot = {"ours": 0, "upstream": 0}
    for r in sz:
        st = r.get("stripped")
        on_disk = "-" if r["bytes"] is None else f"{r['bytes'] / 1024:.0f} KiB"
        stripped = "-" if st is None else f"{st / 1024:.0f} KiB"
        L.append(f"| {r['side']} | {r['what']} | `{r['file']}` | {on_disk} | {stripped} |")
        if st and r["what"] in ("runtime", "kernels"):
            tot[r["side"]] += st
    if tot["ours"] and tot["upstream"]:
        L += ["", f"Runtime + kernels, stripped: ours {tot['ours'] / 1024:.0f} KiB, upstream "
                  f"{tot['upstream'] / 1024:.0f} KiB (ratio {tot['ours'] / tot['upstream']:.2f}). Upstream's Python "
                  "extension also loads its threadpool, XNNPACK, and libtorch."]
    L.append("")

    L += ["### Raw output of the benchmarks in bench/", ""]
    for name, v in data.get("others", {}).items():
        if v.get("status") == "ok":
            L += [f"`{v['command']}`:", "", "```", v["raw"].rstrip(), "```", ""]
        else:
            L += [f"- `{name}`: {v.get('status')}: {v.get('why')}"]
    L += ["", "## Commands", "", "```"] + commands + ["```", ""]
    text = "\n".join(L)
    # The real-size section is measured apart (make bench-realsize): a zoo run keeps the one the
    # file has, which a real-size run of its own then replaces.
    old = path.read_text() if path.exists() else ""
    begin, end = realsize_section.BEGIN, realsize_section.END
    if begin in old and end in old:
        kept = begin + old.split(begin, 1)[1].split(end, 1)[0] + end
        text = text.rstrip("\n") + "\n\n" + kept + "\n"
    path.write_text(text)


# ----------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--build", default=str(REPO / "build"), help="the make O= directory")
    ap.add_argument("--venv", default=None, help="the zoo venv (default: BUILD/zoo-venv)")
    ap.add_argument("--out", default=None, help="RESULTS.md to write (default: bench/RESULTS.md; quick: BUILD/bench/quick/RESULTS.md)")
    ap.add_argument("--png", default=None, help="chart to write (default next to --out as latency.png; quick: none)")
    ap.add_argument("--only", nargs="*", help="only these zoo programs")
    ap.add_argument("--cpu", type=int, default=None, help="core to pin the workers to (default: the last one)")
    ap.add_argument("--sets", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds a worker may take for one answer")
    ap.add_argument("--rerender", action="store_true",
                    help="re-write RESULTS.md (and the chart) from the last run's JSON, re-reading the "
                         "SGEMM output and running the torch reference if it is missing; measures nothing else; "
                         "then the real-size section and realsize.png from theirs (when there is one). With "
                         "--realsize-only: only the real-size section and chart, measuring nothing")
    ap.add_argument("--realsize", action="store_true",
                    help="also run the real-size section (bench/harness/realsize_section.py)")
    ap.add_argument("--realsize-only", action="store_true",
                    help="run only the real-size section and splice it into RESULTS.md")
    ap.add_argument("--realsize-models", nargs="*", help="only these real-size models")
    ap.add_argument("--realsize-threads", nargs="*", type=int, help="only these thread counts (1, 2)")
    a = ap.parse_args()
    a.venv = a.venv or str(Path(a.build) / "zoo-venv")
    if a.cpu is None:
        cores = sorted(os.sched_getaffinity(0))
        a.cpu = cores[-1] if cores else None
    envr = Env(a)
    cfg = ({"sets": 1, "rounds": 2, "warmup": 1, "batch_ms": 0, "min_batch": 2, "max_batch": 2} if a.quick else
           {"sets": 3, "rounds": 5, "warmup": 5, "batch_ms": 25, "min_batch": 3, "max_batch": 2000})
    if a.sets:
        cfg["sets"] = a.sets
    if a.rounds:
        cfg["rounds"] = a.rounds
    out = Path(a.out) if a.out else (envr.build / "bench" / "quick" / "RESULTS.md" if a.quick else REPO / "bench" / "RESULTS.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    png = Path(a.png) if a.png else (None if a.quick else out.parent / "latency.png")
    jpath = envr.build / "bench" / ("results-quick.json" if a.quick else "results.json")
    jpath.parent.mkdir(parents=True, exist_ok=True)

    log(f"bench: {'quick' if a.quick else 'full'} mode, workers pinned to cpu {a.cpu}")
    for rt in RUNTIMES:
        why = envr.available(rt)
        log(f"  {LABELS[rt]:16s} {'available' if why is None else why}")

    if a.rerender and a.realsize_only:
        realsize_section.rerender(envr, a, out, log)
        return 0

    if a.realsize_only:
        problems = realsize_section.run(envr, a, out, measure, log)
        for p in problems:
            log(f"  FAILED  {p}")
        log(f"bench: real-size section, {len(problems)} failed")
        return 1 if problems else 0

    if a.rerender:
        data = json.loads(jpath.read_text())
        data["sgemm"] = parse_sgemm(dict(data["sgemm"], status="ok" if data["sgemm"].get("raw") else "error",
                                         why=None if data["sgemm"].get("raw") else data["sgemm"].get("why")))
        if data["sgemm"].get("status") == "ok" and data.get("torch_ref", {}).get("status") != "ok":
            data["torch_ref"] = torch_compute_ref(envr, data["sgemm"], a.quick)
        jpath.write_text(json.dumps(data, indent=1, default=str))
        if png is not None and envr.has_venv:
            env = dict(envr.base_env)
            env.pop("PYTHONPATH", None)
            if run_cmd([str(envr.venv_python), str(HERE / "plot.py"), str(jpath), str(png)], env=env)["rc"] == 0:
                data["chart"] = os.path.relpath(png, out.parent)
        write_report(out, data, data.get("commands", []))
        log(f"  re-wrote {os.path.relpath(out, REPO)} from {os.path.relpath(jpath, REPO)}")
        if not a.quick and realsize_section.json_path(envr).exists():  # write_report wrote the file without it
            realsize_section.rerender(envr, a, out, log)
        return 0

    manifest = json.loads((ZOO / "manifest.json").read_text())
    only = a.only or (QUICK_PROGRAMS if a.quick else None)
    items = zoo_items(manifest, only) + chain_items()
    results = {}
    for it in items:
        t0 = time.time()
        skip = {}
        if a.quick and it["name"] not in QUICK_TORCH_ITEMS:
            skip = {rt: "skipped: quick mode runs upstream/eager on " + ", ".join(sorted(QUICK_TORCH_ITEMS)) + " only"
                    for rt in ("upstream", "eager")}
        results[it["name"]] = measure(envr, it["spec"], it["name"], RUNTIMES, cfg, skip)
        rs = results[it["name"]]["runtimes"]
        log(f"  {it['name']:28s} " + "  ".join(
            f"{rt}={fmt_t(rs[rt].get('steady_cpu_ms')) if rs[rt]['status'] == 'ok' else rs[rt]['status']}" for rt in RUNTIMES)
            + f"  ({time.time() - t0:.0f} s)")

    dispatch = {}
    for rt in RUNTIMES:
        r1 = results["add_chain_1"]["runtimes"][rt]
        rk = results["add_chain_1000"]["runtimes"][rt]
        if r1.get("status") == "ok" and rk.get("status") == "ok":
            dispatch[rt] = {"t1": r1["steady_cpu_ms"], "t1000": rk["steady_cpu_ms"],
                            "per_instr_ns": (rk["steady_cpu_ms"] - r1["steady_cpu_ms"]) / 999 * 1e6}
        else:
            dispatch[rt] = {"why": rk.get("why") or r1.get("why") or rk.get("status")}
    log("  dispatch per instruction: " + ", ".join(
        f"{rt}={v['per_instr_ns']:.0f} ns" if "per_instr_ns" in v else f"{rt}: {v['why']}" for rt, v in dispatch.items()))

    log("  sgemm/conv ...")
    sg = sgemm_micro(envr, a.quick)
    tr = torch_compute_ref(envr, sg, a.quick) if sg.get("status") == "ok" else {"status": "n/a"}
    log("  imports ...")
    imports = import_micro(envr, 2 if a.quick else 7)
    sizes = size_micro(envr)
    others = others_micro(envr, a.quick)
    zoo_only = [it for it in items if it["group"] != "dispatch"]
    profile = profile_slowest(envr, zoo_only, results)

    data = {"quick": a.quick, "cfg": cfg, "machine": machine_info(envr),
            "runtimes": {"ours-cpp": "bench/harness/et_bench.cpp (extension::Module)",
                         "ours-py": "executorch_runtime", "upstream": "executorch.runtime", "eager": "torch"},
            "items": [{k: v for k, v in it.items() if k != "spec"} for it in zoo_only], "results": results,
            "dispatch": dispatch, "sgemm": sg, "torch_ref": tr, "imports": imports, "sizes": sizes,
            "others": others, "profile": profile}
    data["runtimes"]["ours-cpp"] = "et_bench (extension::Module / Method)"
    jpath.write_text(json.dumps(data, indent=1, default=str))

    if png is not None:
        if envr.has_venv:
            env = dict(envr.base_env)
            env.pop("PYTHONPATH", None)
            r = run_cmd([str(envr.venv_python), str(HERE / "plot.py"), str(jpath), str(png)], env=env, timeout=300)
            if r["rc"] == 0:
                data["chart"] = os.path.relpath(png, out.parent)
            else:
                log(f"  chart not written: {r['stderr'].strip().splitlines()[-1] if r['stderr'].strip() else r['rc']}")
        else:
            log("  chart not written: skipped: no zoo venv (matplotlib lives there)")
    cmds = ["make bench            # full run: writes bench/RESULTS.md and bench/latency.png",
            "make bench-quick      # what make check runs (tiny counts)",
            "python3 " + " ".join([os.path.relpath(__file__, REPO)] + sys.argv[1:]),
            "build/zoo-venv/bin/python bench/harness/make_chain.py   # re-export the dispatch chains",
            "build/zoo-venv/bin/python bench/harness/zoo_shapes.py   # re-record the zoo's linear/conv shapes"]
    data["commands"] = cmds
    jpath.write_text(json.dumps(data, indent=1, default=str))
    write_report(out, data, cmds)
    log(f"  wrote {os.path.relpath(out, REPO)}, {os.path.relpath(jpath, REPO)}"
        + (f", {os.path.relpath(png, REPO)}" if data.get("chart") else ""))

    # ---- every measurement produced a number (no speed assertions)
    passed = failed = 0
    problems = []

    def expect(ok: bool, what: str) -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            problems.append(what)

    for it in items:
        for rt in RUNTIMES:
            r = results[it["name"]]["runtimes"][rt]
            if r["status"] == "skipped":
                continue
            if rt.startswith("ours") and it["group"] == "delegated" and "backend" in (r.get("why") or "").lower():
                continue  # expected until we have an XNNPACK backend (test/zoo/README.md)
            nums = [r.get(k) for k in ("load_cpu_ms", "first_cpu_ms", "steady_cpu_ms", "peak_rss_kb")]
            expect(r["status"] == "ok" and all(isinstance(x, (int, float)) for x in nums),
                   f"{it['name']} / {rt}: {r['status']}: {r.get('why') or r.get('note') or 'missing figure'}")
    for rt in RUNTIMES:
        if envr.available(rt) is None:
            expect("per_instr_ns" in dispatch[rt], f"dispatch / {rt}: {dispatch[rt].get('why')}")
    expect(sg.get("status") in ("ok", "not available"), f"sgemm: {sg.get('why')}")
    if sg.get("status") == "ok" and ZOO_SHAPES.exists():
        expect(len(sg.get("zoo_shapes") or []) == len(read_zoo_shapes()), "sgemm: zoo shapes missing")
    if envr.has_venv and sg.get("status") == "ok":
        expect(tr.get("status") == "ok" and len(tr.get("zoo") or []) == len(sg.get("zoo_shapes") or []),
               f"torch reference: {tr.get('why') or 'zoo shapes missing'}")
    for k, v in imports.items():
        if not k.startswith("_"):
            expect(v.get("import_ms") is not None, f"import {k}: {v.get('error')}")
    for r in sizes["rows"]:
        expect(r.get("stripped") is not None or r.get("why") == "not built" and not envr.has_ours_cpp,
               f"size {r['file']}")
    for name, v in others.items():
        # make bench builds the runtime benchmarks with the rest of ours: when ours is there, they must run.
        required = envr.has_ours_cpp and name in RUNTIME_BENCH_FIGURES
        expect(v["status"] == "ok" or (v["status"] == "not available" and not required), f"{name}: {v.get('why')}")
    if a.realsize:
        for p in realsize_section.run(envr, a, out, measure, log):
            expect(False, p)
    for p in problems:
        log(f"  FAILED  {p}")
    log(f"bench: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
