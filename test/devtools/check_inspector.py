"""check-devtools: upstream's devtools read what our runtime writes.

python test/devtools/check_inspector.py ET_RUN WORK_DIR   (the zoo venv's python: torch and
upstream executorch 1.5.1)

Exports a small model with an ETRecord (to_edge_transform_and_lower(generate_etrecord=True)),
runs it with our `et_run --etdump` (and once more with a debug buffer), loads both files with
executorch.devtools.Inspector and checks its operator names, call counts and run count against
what our `et_run --profile` printed for the same iterations, that the ETRecord's debug handles
resolved (op_types) for every operator event, and that the logged output tensor read back
through the debug buffer equals the method output. Prints "== N passed, N failed ==".
"""

import os
import re
import subprocess
import sys
from collections import Counter

import numpy as np
import torch
from executorch.devtools import Inspector
from executorch.exir import to_edge_transform_and_lower

ITERATIONS = 3
RESULTS = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.fc = torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return torch.sigmoid(self.fc(y.flatten(1)))


def export(work):
    torch.manual_seed(0)
    example = (torch.ones(1, 3, 8, 8),)
    ep = torch.export.export(Model().eval(), example)
    program = to_edge_transform_and_lower(ep, generate_etrecord=True).to_executorch()
    pte = os.path.join(work, "model.pte")
    with open(pte, "wb") as f:
        program.write_to_file(f)
    etrecord = os.path.join(work, "model.etrecord")
    program.get_etrecord().save(etrecord)
    return pte, etrecord, Model().eval()


def et_run(et_run_bin, *args):
    r = subprocess.run([et_run_bin, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"et_run {' '.join(args)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def profile_calls(text):
    """{operator: calls} from et_run --profile's table."""
    table = text.split("operator ", 1)[1].split("all operators", 1)[0]
    rows = re.findall(r"^\s+(\S+)\s+(\d+)\s", table, re.M)
    return {name: int(calls) for name, calls in rows}


def main():
    et_run_bin, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    pte, etrecord, _ = export(work)
    iters = ["--iterations", str(ITERATIONS), "--warmup", "1"]
    profiled = profile_calls(et_run(et_run_bin, pte, "--profile", *iters))
    check("et_run --profile lists operators", len(profiled) > 0, "empty table")
    etdump = os.path.join(work, "model.etdp")
    et_run(et_run_bin, pte, "--etdump", etdump, *iters)

    inspector = Inspector(etdump_path=etdump, etrecord=etrecord)
    blocks = inspector.event_blocks
    # Identical runs form one block whose events carry one sample per run.
    check("Inspector: one event block named Execute",
          [b.name for b in blocks] == ["Execute"], [b.name for b in blocks])
    events = [e for b in blocks for e in b.events]
    ops = [e for e in events if e.name != "Method::execute"]
    method = [e for e in events if e.name == "Method::execute"]
    check("Inspector: a Method::execute event", len(method) == 1, [e.name for e in method])
    runs = {len(e.perf_data.raw) for e in events if e.perf_data is not None}
    check(f"Inspector: {ITERATIONS} runs of every event", runs == {ITERATIONS}, runs)
    counts = Counter()
    for e in ops:
        counts[e.name] += len(e.perf_data.raw) if e.perf_data is not None else 0
    check("Inspector: operator names and call counts equal et_run --profile's",
          dict(counts) == profiled, f"inspector {dict(counts)} vs profile {profiled}")
    unresolved = [e.name for e in ops if not e.op_types]
    check("Inspector: the ETRecord maps every operator event to graph nodes",
          not unresolved, f"no op_types for {unresolved}")
    df = inspector.to_dataframe()
    check("Inspector: to_dataframe has a row per event", len(df) == len(events), len(df))

    # Debug buffer: the program output logged by the runtime is the method's output.
    debug_etdump = os.path.join(work, "debug.etdp")
    outdir = os.path.join(work, "out")
    et_run(et_run_bin, pte, "--etdump", debug_etdump, "--debug-buffer-size", "1M",
           "--output-dir", outdir)
    inspector = Inspector(etdump_path=debug_etdump, etrecord=etrecord,
                          debug_buffer_path=debug_etdump + ".debug")
    (block,) = inspector.event_blocks
    expected = np.load(os.path.join(outdir, "output_0.npy"))
    run_output = block.run_output
    ok = (run_output is not None and len(run_output) == 1
          and np.array_equal(np.asarray(run_output[0]), expected))
    check("Inspector: run_output read through the debug buffer equals the output", ok,
          f"{run_output!r} vs {expected!r}")
    logged = [e for e in block.events if e.debug_data]
    check("Inspector: intermediate outputs attached to operator events", len(logged) > 0,
          "no event has debug_data")

    print(f"== {RESULTS['passed']} passed, {RESULTS['failed']} failed ==")
    return 0 if RESULTS["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
