"""The real-size section of the benchmark (bench.py --realsize / --realsize-only).

The models people deploy, at their real sizes (bench/realsize/models.py), exported at bench time
by bench/realsize/export.py in the zoo venv into BUILD/bench/realsize/ (cached by a config hash,
never committed), then measured with bench.py's own `measure()` (interleaved, pinned, one
process per runtime, golden checks) on:
  - the portable program (.pte): ours C++, ours Python, upstream, eager torch;
  - the XNNPACK-delegated program (_xnnpack.pte, fp32): upstream (its runtime links XNNPACK)
    and ours; until our runtime registers an XnnpackBackend it refuses these files, shown as
    "n/a: backend 'XnnpackBackend' is not registered";
  - for the CNNs, the PT2E int8 program lowered to XNNPACK (_xnnpack_q8.pte): same runtimes.
Each at 1 thread (pinned to one core) and at 2 threads (pinned to two cores; ET_NUM_THREADS,
OMP/MKL threads, torch.set_num_threads and upstream's threadpool at 2); --realsize-threads 1
keeps one of them.

The section is spliced into RESULTS.md between two markers, so --realsize-only refreshes it
without touching the rest; its chart (bench/harness/plot_realsize.py, in the zoo venv) is written
next to RESULTS.md as realsize.png. --rerender re-writes both from the last run's JSON.
"""

from __future__ import annotations

import json
import os
import platform
import re
import statistics
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
EXPORTER = REPO / "bench" / "realsize" / "export.py"
PLOTTER = HERE / "plot_realsize.py"
CHART = "realsize.png"  # next to RESULTS.md
BEGIN, END = "<!-- realsize:begin -->", "<!-- realsize:end -->"
# "upstream@xnnpack": upstream's runtime on the model's XNNPACK .pte, timed in the portable row's
# own interleaved rounds, so that the headline ratio (ours portable over upstream XNNPACK) is
# not a ratio of two rows measured a minute apart on a shared machine whose speed drifts.
RUNTIMES = ["ours-cpp", "ours-py", "upstream", "eager", "upstream@xnnpack"]
VARIANT_LABEL = {"portable": "portable", "xnnpack": "XNNPACK fp32", "xnnpack_q8": "XNNPACK int8"}
# Few, long executions: an upstream portable ResNet-18 execution takes seconds, an XNNPACK one
# milliseconds; the batch size adapts (bench.py's measure()) so each round lasts about batch_ms.
CFG = {"sets": 1, "rounds": 3, "warmup": 1, "batch_ms": 300, "min_batch": 1, "max_batch": 30}
THREADS = (1, 2)


def export(envr, models: Optional[List[str]], log: Callable[[str], None]) -> Dict[str, Any]:
    """Runs the exporter (a no-op for models whose config hash is unchanged); the manifest."""
    out_dir = envr.build / "bench" / "realsize"
    argv = [str(envr.venv_python), str(EXPORTER), "--out", str(out_dir)] + (["--only", *models] if models else [])
    env = dict(envr.base_env)
    env.pop("PYTHONPATH", None)
    env.pop("OMP_NUM_THREADS", None)  # exporting is not measured: let it use the machine
    t0 = time.time()
    import subprocess

    p = subprocess.run(argv, env=env, cwd=str(REPO), capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("realsize export:"):
            log("  " + line)
    if p.returncode != 0:
        raise RuntimeError("exporter failed: " + (p.stderr.strip().splitlines() or ["?"])[-1])
    log(f"  real-size export done ({time.time() - t0:.0f} s)")
    return json.loads((out_dir / "manifest.json").read_text())


def items(envr, manifest: Dict[str, Any], models: Optional[List[str]],
          thread_counts: Optional[List[int]]) -> List[Dict[str, Any]]:
    out_dir = envr.build / "bench" / "realsize"
    cores = sorted(os.sched_getaffinity(0))
    res = []
    for name, m in manifest["models"].items():
        if models and name not in models:
            continue
        for threads in THREADS:
            if threads > len(cores) or (thread_counts and threads not in thread_counts):
                continue
            for variant, v in m["variants"].items():
                spec = {"pte": str(out_dir / v["pte"]), "data": None, "method": "forward",
                        "inputs": [{"kind": "tensor", "path": str(out_dir / f)} for f in m["inputs"]],
                        "goldens": [{"kind": "tensor", "path": str(out_dir / f)} for f in v["goldens"]],
                        "atol": v["atol"], "rtol": v["rtol"],
                        # eager runs the fp32 model once per model and thread count, on the portable row
                        "eager": f"realsize:{name}" if variant == "portable" else None,
                        "threads": threads}
                if threads > 1:
                    spec["cpus"] = cores[-threads:]
                x = m["variants"].get("xnnpack")
                if variant == "portable" and x is not None:
                    spec["runtime_specs"] = {"upstream@xnnpack": dict(
                        spec, pte=str(out_dir / x["pte"]), eager=None, atol=x["atol"], rtol=x["rtol"],
                        goldens=[{"kind": "tensor", "path": str(out_dir / f)} for f in x["goldens"]])}
                res.append({"model": name, "variant": variant, "threads": threads, "spec": spec,
                            "tag": f"realsize.{name}.{variant}.t{threads}"})
    return res


def not_registered(why: Optional[str]) -> Optional[str]:
    m = re.search(r"[Bb]ackend '?([\w]+)'? (?:is )?not registered", why or "")
    return f"backend '{m.group(1)}' is not registered" if m else None


def reason(r: Dict[str, Any]) -> str:
    why = r.get("why") or r.get("note") or r.get("status") or "?"
    short = not_registered(why)
    if short:
        return short
    why = re.sub(r"\s+", " ", why).strip()
    return why if len(why) <= 90 else why[:87] + "..."


def run(envr, a, out: Path, measure: Callable, log: Callable[[str], None]) -> List[str]:
    """Exports, measures, writes the JSON and the RESULTS.md section; the problems found."""
    log("bench: real-size section")
    problems: List[str] = []
    if not envr.has_venv:
        section = [BEGIN, "## Real-size models", "", "skipped: no zoo venv (the exporter needs torch + "
                   "executorch)", END]
        splice(out, section)
        return problems
    manifest = export(envr, a.realsize_models, log)
    stat0 = cpu_jiffies()
    results = []
    for it in items(envr, manifest, a.realsize_models, a.realsize_threads):
        t0 = time.time()
        r = measure(envr, it["spec"], it["tag"], RUNTIMES, CFG)
        results.append({k: v for k, v in it.items() if k != "spec"} | {"result": r})
        rs = r["runtimes"]
        log(f"  {it['model']:20s} {it['variant']:10s} t{it['threads']} " + "  ".join(
            f"{rt}={rs[rt]['steady_cpu_ms']:.1f}ms" if rs[rt]["status"] == "ok" else f"{rt}={rs[rt]['status']}"
            for rt in RUNTIMES) + f"  ({time.time() - t0:.0f} s)")
        for rt in RUNTIMES:
            x = rs[rt]
            if x["status"] == "skipped" or (rt.startswith("ours") and it["variant"] != "portable"
                                            and not_registered(x.get("why"))):
                continue  # eager only on portable rows; ours without an XNNPACK backend yet
            if x["status"] != "ok" or x.get("steady_cpu_ms") is None:
                problems.append(f"realsize {it['tag']} / {rt}: {x['status']}: {reason(x)}")
    data = {"cfg": CFG, "manifest": manifest, "results": results,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "loadavg": Path("/proc/loadavg").read_text().split()[:3],
            "machine": machine(), "steal": steal_share(stat0, cpu_jiffies())}
    jpath = json_path(envr)
    jpath.write_text(json.dumps(data, indent=1, default=str))
    splice(out, render(data, a, chart(envr, jpath, out, log)))
    log(f"  real-size section written into {os.path.relpath(out, REPO)}; {os.path.relpath(jpath, REPO)}")
    return problems


def machine() -> str:
    """'AMD EPYC (family 25 model 1), 2 CPUs, AVX2': what the figures were measured on."""
    info: Dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            k, _, v = line.partition(":")
            info.setdefault(k.strip(), v.strip())
    except OSError:
        return platform.machine()
    flags = info.get("flags", "").split()
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else platform.machine()
    where = (f" (family {info['cpu family']} model {info['model']})"
             if "cpu family" in info and "model" in info else "")
    return f"{info.get('model name', platform.machine())}{where}, {os.cpu_count()} CPUs, {isa}"


def cpu_jiffies() -> Optional[List[int]]:
    """/proc/stat's whole-machine CPU counters (user nice system idle iowait irq softirq steal)."""
    try:
        return [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    except (OSError, ValueError):
        return None


def steal_share(before: Optional[List[int]], after: Optional[List[int]]) -> Optional[float]:
    """The share of CPU time the hypervisor gave to other guests during the run (0 on bare
    metal): the figure that says how noisy a virtual machine's timings are."""
    if before is None or after is None or len(before) < 8 or len(after) < 8:
        return None
    total = sum(after) - sum(before)
    return (after[7] - before[7]) / total if total > 0 else None


def json_path(envr) -> Path:
    return envr.build / "bench" / "realsize-results.json"


def rerender(envr, a, out: Path, log: Callable[[str], None]) -> None:
    """Re-writes the section and its chart from the last run's JSON; measures nothing."""
    jpath = json_path(envr)
    data = json.loads(jpath.read_text())
    splice(out, render(data, a, chart(envr, jpath, out, log)))
    log(f"  re-wrote the real-size section of {os.path.relpath(out, REPO)} from {os.path.relpath(jpath, REPO)}")


def chart(envr, jpath: Path, out: Path, log: Callable[[str], None]) -> Optional[str]:
    """Draws realsize.png next to RESULTS.md in the zoo venv (matplotlib lives there); its path
    relative to RESULTS.md, or None when it could not be drawn."""
    if not envr.has_venv:
        log("  real-size chart not written: skipped: no zoo venv (matplotlib lives there)")
        return None
    import subprocess

    png = out.parent / CHART
    env = dict(envr.base_env)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([str(envr.venv_python), str(PLOTTER), str(jpath), str(png)], env=env, cwd=str(REPO),
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        log("  real-size chart not written: " + ((p.stderr.strip().splitlines() or [str(p.returncode)])[-1]))
        return None
    return os.path.relpath(png, out.parent)


# ---- report ----------------------------------------------------------------------------------


def fmt_ms(ms: Optional[float]) -> str:
    if ms is None:
        return "-"
    return f"{ms:.2f} ms" if ms < 10 else (f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1e3:.2f} s")


def lookup(data, model, variant, threads, rt) -> Dict[str, Any]:
    for x in data["results"]:
        if (x["model"], x["variant"], x["threads"]) == (model, variant, threads):
            r = x["result"]["runtimes"].get(rt)
            if rt == "upstream@xnnpack" and (r is None or r.get("status") == "skipped"):
                return lookup(data, model, "xnnpack", threads, "upstream")
            return r or {}
    return {"status": "skipped", "why": "not exported"}


def tcell(r: Dict[str, Any], key: str) -> str:
    if r.get("status") == "ok" and r.get(key) is not None:
        return fmt_ms(r[key])
    if r.get("status") == "wrong":
        return f"wrong ({reason(r)})"
    return "n/a: " + reason(r)


def ratio(a: Dict[str, Any], b: Dict[str, Any], key: str) -> str:
    if a.get("status") == "ok" and b.get("status") == "ok" and a.get(key) and b.get(key):
        return f"{a[key] / b[key]:.2f}"
    return "-"


# Table columns: (variant, runtime) is a time; a pair of them is the ratio of the two times.
# Upstream XNNPACK's time and the headline ratio come from the portable row ("upstream@xnnpack",
# measured in the same rounds as ours); where it was not run (a JSON from before that runtime
# existed) the XNNPACK row's upstream time stands in (lookup()).
UPSTREAM_XNNPACK = ("portable", "upstream@xnnpack")
FP32_COLUMNS = [("portable", "ours-cpp"), ("portable", "ours-py"), ("portable", "upstream"), UPSTREAM_XNNPACK,
                ("xnnpack", "ours-cpp"), ("portable", "eager"),
                (("portable", "ours-cpp"), UPSTREAM_XNNPACK), (("xnnpack", "ours-cpp"), ("xnnpack", "upstream")),
                (("portable", "ours-cpp"), ("portable", "eager"))]
INT8_COLUMNS = [("xnnpack_q8", "upstream"), ("xnnpack_q8", "ours-cpp"), ("xnnpack_q8", "ours-py"),
                (("xnnpack_q8", "ours-cpp"), ("xnnpack_q8", "upstream")),
                (("xnnpack_q8", "upstream"), ("xnnpack", "upstream"))]


def row(data, model: str, threads: int, key: str, columns) -> str:
    cells = []
    for c in columns:
        if isinstance(c[0], tuple):
            cells.append(ratio(lookup(data, model, c[0][0], threads, c[0][1]),
                               lookup(data, model, c[1][0], threads, c[1][1]), key))
        else:
            cells.append(tcell(lookup(data, model, c[0], threads, c[1]), key))
    return f"| {model} | " + " | ".join(cells) + " |"


def rel_tol(manifest: Dict[str, Any], int8: bool) -> str:
    rels = {v["rel"] for m in manifest["models"].values() for k, v in m["variants"].items()
            if k.endswith("_q8") == int8 and "rel" in v}
    return " / ".join(f"{r:g}" for r in sorted(rels)) or "-"


def run_conditions(data: Dict[str, Any]) -> str:
    """' on <machine> (load average ...; steal ...)' from what the run recorded (older runs
    recorded only the load average)."""
    where = f" on {data['machine']}" if data.get("machine") else ""
    notes = [f"load average at the end {' '.join(data['loadavg'])}"]
    if data.get("steal") is not None:
        notes.append(f"hypervisor steal time {100 * data['steal']:.1f}% of the CPU time during the run")
    return (f"{where} ({'; '.join(notes)}; wall times vary from run to run on a shared or virtual "
            "machine, CPU-time medians less so)")


def render(data: Dict[str, Any], a, chart: Optional[str] = None) -> List[str]:
    man = data["manifest"]
    cfg = data.get("cfg", CFG)  # the run's own settings, so a re-render describes that run
    L = [BEGIN, "## Real-size models", "",
         f"Run {data['date']}{run_conditions(data)}. Models: `bench/realsize/models.py` (torchvision's "
         "published structures, written out; random weights with BatchNorm statistics measured on random images), exported at bench time "
         "by `bench/realsize/export.py` (torch " + man["versions"]["torch"] + ", executorch "
         + man["versions"]["executorch"] + ") into `build/bench/realsize/`, never committed. Each row: one "
         f"set, {cfg['rounds']} interleaved rounds after a warm-up, per-process workers (bench.py's `measure()`); "
         "every runtime's first output is checked against the golden (fp32: eager torch, normwise relative "
         f"error {rel_tol(man, False)}; int8: the converted PT2E module, {rel_tol(man, True)}). At 2 threads our runtime is given "
         "`ET_NUM_THREADS=2`: a runtime that does not read it runs one thread.", "",
         "| model | params | portable .pte | XNNPACK .pte | int8 XNNPACK .pte |", "|---|---|---|---|---|"]
    for name, m in man["models"].items():
        sizes = [f"{m['variants'][v]['bytes'] / 2**20:.1f} MiB" if v in m["variants"] else "-"
                 for v in ("portable", "xnnpack", "xnnpack_q8")]
        L.append(f"| {m['description']} | {m['params'] / 1e6:.1f} M | " + " | ".join(sizes) + " |")
    if chart:
        L += ["", "1 thread, CPU-time medians of the tables below, each divided by upstream's XNNPACK fp32 "
              "time for the same model (`bench/harness/plot_realsize.py`):", "",
              f"![real-size models, 1 thread, relative to upstream XNNPACK fp32]({chart})"]
    models = list(dict.fromkeys(x["model"] for x in data["results"]))
    for threads in THREADS:
        key = "steady_cpu_ms" if threads == 1 else "steady_ms"
        if not any(x["threads"] == threads for x in data["results"]):
            continue
        what = ("process CPU time per execution, median" if threads == 1 else
                "wall time per execution, median (CPU time adds up both threads, so only the wall clock "
                "can show a second thread helping; noisy on this shared machine)")
        L += ["", f"### {threads} thread{'s' if threads > 1 else ''}: steady-state latency", "",
              f"{what}. Ratios: time of ours over the other (below 1: ours faster). \"upstream XNNPACK\" is "
              "upstream's runtime on the XNNPACK .pte timed in the same interleaved rounds as ours portable "
              "(the headline ratio); \"ours XNNPACK / upstream XNNPACK\" compares the two runtimes on the "
              "XNNPACK .pte in that program's own rounds.", "",
              "| model | ours C++ portable | ours Python portable | upstream portable | upstream XNNPACK | "
              "ours C++ XNNPACK | eager torch | ours portable / upstream XNNPACK | ours XNNPACK / upstream XNNPACK "
              "| ours portable / eager |", "|---|---|---|---|---|---|---|---|---|---|"]
        for mname in models:
            L.append(row(data, mname, threads, key, FP32_COLUMNS))
        q8 = [mn for mn in models if any(x["model"] == mn and x["variant"] == "xnnpack_q8" for x in data["results"])]
        if q8:
            L += ["", f"int8 (PT2E, XNNPACKQuantizer per-channel, lowered to XNNPACK), {threads} thread"
                      f"{'s' if threads > 1 else ''}:", "",
                  "| model | upstream XNNPACK int8 | ours C++ XNNPACK int8 | ours Python XNNPACK int8 | "
                  "ours / upstream | upstream int8 / upstream fp32 |", "|---|---|---|---|---|---|"]
            for mname in q8:
                L.append(row(data, mname, threads, key, INT8_COLUMNS))
    L += ["", "### Load (file to method ready, wall), memory the load-time preparation added, and peak RSS, "
          "1 thread", "",
          "\"prepared at load\": the bytes our runtime's preparation pass holds besides the file's own "
          "constants (constant-only instructions folded, weights packed for the micro-kernels; "
          "`Method::prepared_constant_bytes()`, Python `Method.prepared_bytes`), for the portable programs; in "
          "an XNNPACK program the delegate packs its own weights when it initializes, outside that pass. The "
          "other runtimes have no such pass.", "",
          "| model | program | runtime | load | first execution | prepared at load | peak RSS |",
          "|---|---|---|---|---|---|---|"]
    for x in data["results"]:
        if x["threads"] != 1:
            continue
        for rt in RUNTIMES:
            r = x["result"]["runtimes"].get(rt, {"status": "skipped"})
            if r.get("status") == "skipped" or rt == "upstream@xnnpack":  # its own row has it
                continue
            rss = f"{r['peak_rss_kb'] / 1024:.0f} MB" if r.get("status") == "ok" and r.get("peak_rss_kb") else "-"
            load = "(builds the module)" if rt == "eager" and r.get("status") == "ok" else tcell(r, "load_ms")
            prep = (f"{r['prepared_bytes'] / 2**20:.1f} MiB" if r.get("status") == "ok" and x["variant"] ==
                    "portable" and r.get("prepared_bytes") is not None else "-")
            L.append(f"| {x['model']} | {VARIANT_LABEL[x['variant']]} | {rt} | {load} | "
                     f"{tcell(r, 'first_ms') if r.get('status') == 'ok' else '-'} | {prep} | {rss} |")
    L += ["", "Commands: `make bench-realsize` (this section only; `make bench` runs it too, `make bench-quick` "
          "never), `build/zoo-venv/bin/python bench/realsize/export.py --out build/bench/realsize` (export "
          "only). Per-row figures, IQRs and wall times: `build/bench/realsize-results.json`.", END]
    return L


def splice(out: Path, section: List[str]) -> None:
    text = out.read_text() if out.exists() else ""
    block = "\n".join(section) + "\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block.rstrip("\n") + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block
    out.write_text(text)
