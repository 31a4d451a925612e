#!/usr/bin/env python3
"""Chart of per-model steady-state latency (ours vs upstream vs eager) from the harness's JSON.

    build/zoo-venv/bin/python bench/harness/plot.py build/bench/results.json bench/latency.png

Runs in the zoo venv (matplotlib pinned in bench/harness/requirements.txt).
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RUNTIMES = [("ours-cpp", "ours (C++ Module)", "#1f77b4"), ("ours-py", "ours (Python bindings)", "#6baed6"),
            ("upstream", "upstream ExecuTorch 1.5.1 (Python runtime)", "#ff7f0e"),
            ("eager", "eager PyTorch 2.13", "#2ca02c")]


def main() -> int:
    data = json.load(open(sys.argv[1]))
    items = [it for it in data["items"] if it["group"] in ("model", "delegated")]
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(items) * len(RUNTIMES) / 2 + 2))
    h = 0.8 / len(RUNTIMES)
    names = [it["name"] for it in items]
    missing = []
    for j, (rt, label, color) in enumerate(RUNTIMES):
        ys, xs, miss = [], [], []
        for i, it in enumerate(items):
            r = data["results"][it["name"]]["runtimes"].get(rt, {})
            y = i + (j - (len(RUNTIMES) - 1) / 2) * h
            if r.get("status") == "ok" and r.get("steady_cpu_ms"):
                ys.append(y)
                xs.append(r["steady_cpu_ms"] * 1e3)
            else:
                miss.append(y)
        ax.barh(ys, xs, height=h, color=color, label=label)
        missing += [(y, color) for y in miss]
    ax.set_xscale("log")
    x0 = ax.get_xlim()[0]
    for y, color in missing:
        ax.text(x0 * 1.1, y, "n/a (not supported)", va="center", fontsize=7, color=color)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlabel("steady-state time per call, µs (median process CPU time, log scale; shorter is faster)")
    m = data["machine"]
    ax.set_title(f"Zoo models, one thread — {m.get('cpu', '')}, {m['date']}", fontsize=10)
    finish(fig, ax, sys.argv[2])
    return 0


def finish(fig, ax, path: str) -> None:
    """The harness charts' common ending (also bench/harness/plot_realsize.py)."""
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
