#!/usr/bin/env python3
"""Chart of the real-size section (1 thread) from its JSON, normalized to upstream XNNPACK fp32.

    build/zoo-venv/bin/python bench/harness/plot_realsize.py build/bench/realsize-results.json bench/realsize.png

Per model: the median steady-state process CPU time of each bar divided by upstream ExecuTorch's
XNNPACK fp32 time for the same model (the line at 1.0). Normalized rather than absolute because
the models differ by 10x in cost while the comparison of interest is between runtimes; the
absolute reference time is printed under each model's name. Runs in the zoo venv (matplotlib
pinned in bench/harness/requirements.txt), like plot.py.
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot import finish  # noqa: E402  (next to this file)

REFERENCE = ("xnnpack", "upstream")
BARS = [(("portable", "ours-cpp"), "ours C++, portable fp32", "#1f77b4"),
        (("xnnpack", "ours-cpp"), "ours C++, XNNPACK fp32", "#6baed6"),
        (("portable", "eager"), "eager PyTorch, fp32", "#2ca02c"),
        (("xnnpack_q8", "ours-cpp"), "ours C++, XNNPACK int8", "#9467bd"),
        (("xnnpack_q8", "upstream"), "upstream ExecuTorch, XNNPACK int8", "#ff7f0e")]


def cpu_ms(data, model, variant, runtime):
    """The 1-thread steady CPU-time median, or None with why it is missing."""
    for x in data["results"]:
        if (x["model"], x["variant"], x["threads"]) == (model, variant, 1):
            r = x["result"]["runtimes"].get(runtime, {})
            if r.get("status") == "ok" and r.get("steady_cpu_ms"):
                return r["steady_cpu_ms"], None
            return None, "n/a (" + str(r.get("status", "not run")) + ")"
    return None, "n/a (no int8 program)" if variant == "xnnpack_q8" else "n/a (not exported)"


def reference_ms(data, model):
    """Upstream XNNPACK fp32's time: from the portable row's rounds (where ours portable ran in
    the same rounds), else from the XNNPACK row (a JSON from before that runtime existed)."""
    ms, _ = cpu_ms(data, model, "portable", "upstream@xnnpack")
    return ms if ms is not None else cpu_ms(data, model, *REFERENCE)[0]


def main() -> int:
    data = json.load(open(sys.argv[1]))
    models = list(dict.fromkeys(x["model"] for x in data["results"] if x["threads"] == 1))
    refs = {m: reference_ms(data, m) for m in models}
    fig, ax = plt.subplots(figsize=(10, 0.3 * len(models) * len(BARS) + 2))
    h = 0.8 / len(BARS)
    notes = []
    for j, ((variant, runtime), label, color) in enumerate(BARS):
        ys, xs = [], []
        for i, m in enumerate(models):
            y = i + (j - (len(BARS) - 1) / 2) * h
            ms, why = cpu_ms(data, m, variant, runtime)
            # Each bar over the upstream XNNPACK time of its own row's rounds where there is one.
            ref = refs[m] if variant == "portable" else (cpu_ms(data, m, *REFERENCE)[0] or refs[m])
            if ms is not None and ref:
                ys.append(y)
                xs.append(ms / ref)
                notes.append((ms / ref, y, f" {ms / ref:.2f}", "black"))
            else:
                notes.append((0, y, " " + (why or "n/a (no upstream XNNPACK time)"), color))
        ax.barh(ys, xs, height=h, color=color, label=label)
    ax.axvline(1.0, color="#d62728", linewidth=1.2, label="upstream ExecuTorch, XNNPACK fp32 (= 1.0)")
    for x, y, text, color in notes:
        ax.text(x, y, text, va="center", fontsize=7, color=color)
    ax.set_xlim(0, max([x for x, *_ in notes] + [1.0]) * 1.12)
    ax.set_yticks(range(len(models)))
    ax.set_yticklabels([f"{m}\n(upstream XNNPACK {refs[m]:.1f} ms)" if refs[m] else m for m in models], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("steady-state CPU time per execution / upstream XNNPACK fp32's (median; below 1: faster)")
    ax.set_title(f"Real-size models, one thread, normalized to upstream XNNPACK fp32 — {data['date']}", fontsize=10)
    finish(fig, ax, sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
