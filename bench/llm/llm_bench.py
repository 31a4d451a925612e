#!/usr/bin/env python3
"""LLM prefill and decode speed: our runtime against upstream's, same .pte, same loop.

    python bench/llm/llm_bench.py --build build --venv build/zoo-venv   (make bench-llm)

Method
- At bench time (never committed) a Llama is exported with upstream's own recipe, once per
  entry of test/zoo/export_llm.py's VARIANTS (portable fp32, XNNPACK-lowered fp32, XNNPACK
  8da4w; seeded random weights) at a real size: dim 512, 8 layers, 8 heads, vocab 32000,
  context 256. --variants picks some.
- Each runtime runs in its own process (bench/llm/llm_worker.py), pinned to one core, with torch
  and upstream at one thread: our Python bindings (the staged package under BUILD/python) and
  upstream's Python runtime (executorch.runtime, with its llama custom-ops library). Both run
  the identical Python loop, so the comparison is runtime against runtime.
- A round is: prefill PROMPT_LEN tokens in one call at position 0, then DECODE_LEN greedy
  decode calls. Rounds alternate ours, upstream, ours, upstream, ... after one warm-up round
  each; figures are medians of process CPU time, ratios are ratios of medians. The first
  round's tokens of both runtimes are compared (the first must agree: a fast wrong answer is not
  a result; later ones may part on a near-tie of random logits, the report counts them).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "test" / "zoo"))
import export_llm  # noqa: E402  (the recipes: VARIANTS)

BENCH_PARAMS = {"dim": 512, "n_layers": 8, "n_heads": 8, "n_kv_heads": 8, "vocab_size": 32000,
                "multiple_of": 256, "norm_eps": 1e-5}
BENCH_MAX_SEQ_LEN = 256
QUICK_PARAMS = {"dim": 64, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "vocab_size": 256,
                "multiple_of": 32, "norm_eps": 1e-5}


class Worker:
    def __init__(self, which, python, pte, prompt_len, decode_len, vocab, env, cpu):
        def pin():
            if cpu is not None:
                os.sched_setaffinity(0, {cpu})

        self.name = which
        self.proc = subprocess.Popen(
            [python, str(HERE / "llm_worker.py"), which, str(pte), str(prompt_len),
             str(decode_len), str(vocab)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
            preexec_fn=pin)
        self.ready = self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name} worker exited (status {self.proc.wait()})")
        return json.loads(line)

    def round(self):
        self.proc.stdin.write("round\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def bench_variant(a, build, python, work, variant, recipe, params, max_seq):
    """Exports one recipe (once per configuration) and runs the interleaved rounds.

    Returns (per-runtime medians, the warm-up round's tokens per runtime, the .pte's size)."""
    name = ("quick_" if a.quick else "bench_") + variant
    pte = work / f"{name}.pte"
    stamp = work / f"{name}.json"
    config = {"params": params, "max_seq_len": max_seq, "recipe": recipe}
    if not pte.exists() or not stamp.exists() or json.loads(stamp.read_text()) != config:
        print(f"  EXPORT  {pte} (export_llama {' '.join(recipe)}, dim {params['dim']}, "
              f"{params['n_layers']} layers)", flush=True)
        code = ("import sys; sys.path.insert(0, %r); from pathlib import Path; import export_llm; "
                "export_llm.export(%r, %r, Path(%r), %r, %d)"
                % (str(REPO / "test" / "zoo"), name, recipe, str(work), params, max_seq))
        subprocess.run([python, "-c", code], check=True, stdout=subprocess.DEVNULL)
        stamp.write_text(json.dumps(config))

    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", ET_NUM_THREADS="1")
    ours_env = dict(env, PYTHONPATH=str(build / "python"))
    up_env = dict(env)
    up_env.pop("PYTHONPATH", None)
    cpu = None if a.cpu < 0 else a.cpu
    vocab = params["vocab_size"]
    ours = Worker("ours", python, pte, a.prompt_len, a.decode_len, vocab, ours_env, cpu)
    upstream = Worker("upstream", python, pte, a.prompt_len, a.decode_len, vocab, up_env, cpu)
    rows = {"ours": [], "upstream": []}
    first = {}
    for w in (ours, upstream):  # warm-up
        first[w.name] = w.round()["tokens"]
    for _ in range(a.rounds):
        for w in (ours, upstream):
            rows[w.name].append(w.round())
    ours.close()
    upstream.close()

    def med(n, key):
        return statistics.median(r[key] for r in rows[n])

    res = {}
    for n in rows:
        res[n] = {"prefill_tok_s": a.prompt_len / med(n, "prefill_s"),
                  "decode_tok_s": a.decode_len / med(n, "decode_s"),
                  "load_s": (ours if n == "ours" else upstream).ready["load_s"]}
    return res, first, pte.stat().st_size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--venv", default="build/zoo-venv")
    ap.add_argument("--out", default=str(REPO / "bench" / "LLM_RESULTS.md"))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--prompt-len", type=int, default=64)
    ap.add_argument("--decode-len", type=int, default=64)
    ap.add_argument("--cpu", type=int, default=0, help="core to pin both workers to (-1: none)")
    ap.add_argument("--variants", nargs="+", default=list(export_llm.VARIANTS),
                    choices=list(export_llm.VARIANTS),
                    help="export_llm.py recipes to bench (default: all)")
    ap.add_argument("--quick", action="store_true",
                    help="the tiny fixture config and two rounds; output under BUILD/bench")
    a = ap.parse_args()

    build = Path(a.build).resolve()
    python = str(Path(a.venv).resolve() / "bin" / "python")
    params, max_seq = (QUICK_PARAMS, 64) if a.quick else (BENCH_PARAMS, BENCH_MAX_SEQ_LEN)
    if a.quick:
        a.rounds, a.prompt_len, a.decode_len = 2, 8, 8
    work = build / "bench" / "llm"
    work.mkdir(parents=True, exist_ok=True)
    lines = [
        "# LLM generation speed: ours vs upstream's runtime",
        "",
        f"Written by `make bench-llm` (bench/llm/llm_bench.py) on "
        f"{datetime.date.today().isoformat()}, {platform.machine()}, "
        f"{os.cpu_count()} cores, both workers pinned to one core, one thread.",
        "",
        f"Programs: upstream's `export_llama` with the recipes of test/zoo/export_llm.py's "
        f"VARIANTS (below), dim {params['dim']}, {params['n_layers']} layers, "
        f"{params['n_heads']} heads ({params['n_kv_heads']} KV heads), vocab "
        f"{params['vocab_size']}, context {max_seq}; seeded random weights, exported at bench "
        "time.",
        f"Round: prefill {a.prompt_len} tokens in one call, then {a.decode_len} greedy decode "
        f"calls; {a.rounds} interleaved rounds after a warm-up; medians of process CPU time.",
        "",
        "| program | runtime | prefill tokens/s | decode tokens/s | import + load s (CPU) |",
        "|---|---|---|---|---|",
    ]
    notes = []
    status = 0
    for variant in a.variants:
        recipe = export_llm.VARIANTS[variant]
        res, first, size = bench_variant(a, build, python, work, variant, recipe, params,
                                         max_seq)
        for n, label in (("ours", "ours (Python bindings)"),
                         ("upstream", "upstream (Python runtime)")):
            r = res[n]
            lines.append(f"| {variant} | {label} | {r['prefill_tok_s']:.1f} | "
                         f"{r['decode_tok_s']:.1f} | {r['load_s']:.3f} |")
        same = first["ours"] == first["upstream"]
        agree = sum(x == y for x, y in zip(first["ours"], first["upstream"]))
        notes.append(
            f"- {variant} (`{' '.join(recipe)}`, {size / 1e6:.1f} MB): ours over upstream, "
            f"prefill {res['ours']['prefill_tok_s'] / res['upstream']['prefill_tok_s']:.2f}x the "
            f"throughput, decode "
            f"{res['ours']['decode_tok_s'] / res['upstream']['decode_tok_s']:.2f}x (above 1: ours "
            f"is faster); greedy tokens of the warm-up round "
            f"{'identical' if same else 'DIFFERENT'} ({agree}/{len(first['ours'])} agree).")
        if first["ours"][:1] != first["upstream"][:1]:
            # Later tokens may part on a near-tie of random logits; the first one may not.
            print(f"error: {variant}: the runtimes disagree on the first greedy token",
                  file=sys.stderr)
            status = 1
    lines += [""] + notes + [""]
    out = Path(a.out) if not a.quick else work / "LLM_RESULTS.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    return status


if __name__ == "__main__":
    sys.exit(main())
