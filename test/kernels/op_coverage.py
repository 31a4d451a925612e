#!/usr/bin/env python3
"""Operator coverage of the kernel library against upstream ExecuTorch.

    python3 test/kernels/op_coverage.py --list-ops build/test/kernels/list_ops \\
        --kernels-lib build/lib/libexecutorch_kernels.so.1 [--report build/op-coverage.md]

Compares the operators the kernel library registers (asked of the registry by
the list_ops tool) with upstream's operator list (test/kernels/upstream_ops.txt,
test/kernels/gen_upstream_ops.sh), and prints per upstream section how many
are registered, missing, or NotSupported by design
(test/kernels/op_not_supported.txt: registered, but the kernel fails with
Error::NotSupported). The dtypes of a registered operator are the ones its
golden cases (every test/fixtures/kernels*/index.json) run it with.

Exits 1 if a registered operator has no golden case (an operator on the
NotSupported list needs one too: the case that expects NotSupported), or a
NotSupported entry is not registered. Standard library only: `make check`
runs it.
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

# Report order of dtypes.
DTYPE_ORDER = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
               "uint8", "bool"]


def read_upstream(path):
    """[(section, op)] and the upstream commit from the header."""
    ops, commit = [], "unknown"
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# upstream commit "):
                commit = line.split()[-1]
            if not line or line.startswith("#"):
                continue
            section, op = line.split()
            ops.append((section, op))
    return ops, commit


def read_not_supported(path):
    """{op: reason}; lines "<op> <reason...>", # comments."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            op, _, reason = line.partition(" ")
            out[op] = reason.strip()
    return out


def case_dtype(case):
    """The dtype a case runs its operator in: its first input tensor's (the first item of a
    tensor list), or for ops without tensor inputs (factories) its first out's."""
    outs = []
    for a in case["args"]:
        if a["kind"] == "tensor":
            return a["dtype"]
        if a["kind"] in ("tensorlist", "opttensorlist"):
            items = [t for t in a["value"] if t is not None]
            if items:
                return items[0]["dtype"]
        if a["kind"] == "out":
            outs.append(a["dtype"])
        if a["kind"] == "outlist" and a["value"]:
            outs.append(a["value"][0]["dtype"])
    return outs[0] if outs else None


def read_goldens(root):
    """{op: {"cases": n, "errors": n, "dtypes": set, "dirs": set}} over every goldens index."""
    info = collections.defaultdict(lambda: {"cases": 0, "errors": 0, "dtypes": set(),
                                            "dirs": set()})
    for index in sorted(glob.glob(os.path.join(root, "test", "fixtures", "kernels*",
                                               "index.json"))):
        with open(index) as f:
            cases = json.load(f)["cases"]
        d = os.path.basename(os.path.dirname(index))
        for c in cases:
            e = info[c["op"]]
            e["dirs"].add(d)
            if "error" in c:
                e["errors"] += 1
                continue
            e["cases"] += 1
            dt = case_dtype(c)
            if dt is not None:
                e["dtypes"].add(dt)
    return info


def registered_ops(list_ops, kernels_lib):
    r = subprocess.run([list_ops, kernels_lib], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if r.returncode != 0:
        sys.exit("op_coverage: %s failed: %s" % (list_ops, r.stderr.strip()))
    return set(l.strip() for l in r.stdout.splitlines() if l.strip())


def dtype_list(s):
    return ", ".join(d for d in DTYPE_ORDER if d in s) or "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list-ops", required=True, help="the list_ops tool")
    ap.add_argument("--kernels-lib", required=True, help="libexecutorch_kernels.so.1")
    ap.add_argument("--upstream", default=os.path.join(HERE, "upstream_ops.txt"))
    ap.add_argument("--not-supported", default=os.path.join(HERE, "op_not_supported.txt"))
    ap.add_argument("--report", help="write the Markdown report here")
    args = ap.parse_args()

    upstream, commit = read_upstream(args.upstream)
    not_supported = read_not_supported(args.not_supported)
    goldens = read_goldens(ROOT)
    registered = registered_ops(args.list_ops, args.kernels_lib)
    upstream_names = set(op for _, op in upstream)

    problems = []
    for op in sorted(registered):
        g = goldens.get(op)
        if g is None or g["cases"] + g["errors"] == 0:
            problems.append("%s is registered but has no golden case" % op)
        elif op not in not_supported and g["cases"] == 0:
            problems.append("%s has only error golden cases" % op)
    for op in sorted(not_supported):
        if op not in registered:
            problems.append("%s is on the NotSupported list but not registered" % op)

    sections = collections.OrderedDict()
    for section, op in upstream:
        sections.setdefault(section, []).append(op)

    lines = ["# Operator coverage", "",
             "Generated by `make op-coverage` (test/kernels/op_coverage.py): the operators "
             "libexecutorch_kernels.so.1 registers, compared with upstream ExecuTorch's kernel "
             "libraries at commit `%s` (test/kernels/upstream_ops.txt). Dtypes are the ones the "
             "golden cases (test/fixtures/kernels*/index.json, from eager PyTorch) run the "
             "operator in (the first input tensor's dtype; the out's for factories)." % commit,
             "", "| upstream set | operators | registered | NotSupported | missing |",
             "|---|---|---|---|---|"]
    summary = []
    for section, ops in sections.items():
        reg = [op for op in ops if op in registered and op not in not_supported]
        ns = [op for op in ops if op in not_supported and op in registered]
        miss = [op for op in ops if op not in registered]
        lines.append("| %s | %d | %d | %d | %d |" % (section, len(ops), len(reg), len(ns),
                                                      len(miss)))
        summary.append("%s: %d operators, %d registered, %d NotSupported, %d missing"
                       % (section, len(ops), len(reg), len(ns), len(miss)))
    extra = sorted(registered - upstream_names)
    lines += ["", "Registered here but not in upstream's lists: %d." % len(extra)]

    for section, ops in sections.items():
        lines += ["", "## %s" % section, "", "| operator | status | golden cases (errors) | dtypes |",
                  "|---|---|---|---|"]
        for op in ops:
            g = goldens.get(op, {"cases": 0, "errors": 0, "dtypes": set()})
            if op in not_supported and op in registered:
                status = "NotSupported: " + not_supported[op]
            elif op in registered:
                status = "registered"
            else:
                status = "**missing**"
            lines.append("| `%s` | %s | %d (%d) | %s |" % (op, status, g["cases"], g["errors"],
                                                            dtype_list(g["dtypes"])))
    if extra:
        lines += ["", "## Registered, not in upstream's lists", "",
                  "| operator | golden cases (errors) | dtypes |", "|---|---|---|"]
        for op in extra:
            g = goldens.get(op, {"cases": 0, "errors": 0, "dtypes": set()})
            lines.append("| `%s` | %d (%d) | %s |" % (op, g["cases"], g["errors"],
                                                      dtype_list(g["dtypes"])))
    report = "\n".join(lines) + "\n"
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
        with open(args.report, "w") as f:
            f.write(report)

    print("op coverage against upstream %s (%d operators registered by %s)"
          % (commit[:12], len(registered), os.path.basename(args.kernels_lib)))
    for s in summary:
        print("  " + s)
    print("  registered, not upstream: %d" % len(extra))
    for section, ops in sections.items():
        miss = [op for op in ops if op not in registered]
        if miss:
            print("  missing (%s): %s" % (section, " ".join(miss)))
    if args.report:
        print("  report: %s" % args.report)
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
