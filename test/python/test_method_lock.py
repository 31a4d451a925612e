"""No binding waits for a Method's lock while holding the GIL.

A thread inside execute holds the Method's lock and takes the GIL to convert the outputs; a
binding that waited for the lock with the GIL held would deadlock against it. Each test runs
one entry point that takes the lock in a loop on the main thread while a second thread executes
the same Method in a loop. The pair runs in a child interpreter with a timeout, so a deadlock
fails the test (with the child's thread stacks, dumped by faulthandler) instead of hanging the
suite."""

import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, zoo_path

BUNDLED_MLP = f"{ROOT}/test/fixtures/bundled/mlp.bpte"

# Seconds the child may take. A deadlocked child never finishes; a healthy one takes a second
# or two, more on a loaded machine.
TIMEOUT = 60

# The child: `setup` defines `m` (the Method) and `execute()`; the worker thread calls
# execute() until told to stop. Once the worker has completed one execution, the main thread
# runs `call` until it has made ROUNDS calls and the worker EXECUTIONS executions (a fixed
# number of calls alone could all fit in one of the main thread's GIL slices while the worker
# waits for the GIL outside the Method; a short switch interval keeps the two interleaving),
# then `check`.
CHILD = """\
import faulthandler
import sys
import threading
import time

import numpy as np
import executorch_runtime as et

faulthandler.dump_traceback_later({dump_after}, exit=False)
sys.setswitchinterval(1e-4)
ROUNDS = 200
EXECUTIONS = 200
{setup}
stop = threading.Event()
executions = 0
errors = []


def worker():
    global executions
    try:
        while not stop.is_set():
            execute()
            executions += 1
    except BaseException as e:  # noqa: BLE001
        errors.append(repr(e))


t = threading.Thread(target=worker, daemon=True)
t.start()
while executions == 0 and not errors:
    time.sleep(0.001)
rounds = 0
while (executions < EXECUTIONS or rounds < ROUNDS) and not errors:
{call}
    rounds += 1
stop.set()
t.join()
assert not errors, errors
{check}
print("finished")
"""


def mlp_setup(load_kwargs=""):
    """Setup code: mlp.pte's forward loaded with `load_kwargs` as `m`, `execute()` runs it."""
    return f"""
m = et.load({zoo_path('mlp.pte')!r}).load_method("forward"{load_kwargs})
x = np.arange(64, dtype=np.float32).reshape(4, 16) / 64
def execute():
    m(x)
"""


# entry point -> (setup, call, check)
CASES = {
    "profile_results": (
        mlp_setup(", profile=True"),
        "rows = m.profile_results()",
        # The counts saw every run of the worker: each is the count of one run times the runs.
        "total = {n: c for n, c, _ in m.profile_results()}; m.reset_profile(); m(x); "
        "one = {n: c for n, c, _ in m.profile_results()}; "
        "assert one and total == {n: c * executions for n, c in one.items()}, "
        "(total, one, executions)",
    ),
    "reset_profile": (
        mlp_setup(", profile=True"),
        "m.reset_profile()",
        "m.reset_profile(); assert m.profile_results() == []; m(x); assert m.profile_results()",
    ),
    "write_etdump": (
        mlp_setup(", etdump=True") + "import os\npath = os.path.join(sys.argv[1], 'm.etdp')\n",
        # Refused (ValueError) when no run happened since the previous write.
        textwrap.dedent("""\
            try:
                m.write_etdump(path)
            except ValueError as e:
                assert "has not been executed" in str(e), e"""),
        "m(x); m.write_etdump(path); assert os.path.getsize(path) > 0",
    ),
    "_fixed_input": (
        f"""
m = et.load({zoo_path('prim_inputs.pte')!r}).load_method("forward")
a = np.ones((2, 3), np.float32)
def execute():
    m(a, a, 3, 0.5, True)
fixed = []
""",
        "fixed.append(m._fixed_input(2))",
        "assert fixed == [3] * rounds, set(fixed)",
    ),
    "execute": (
        mlp_setup() + "want = m(x)[0]\nouts = []\n",
        "outs.append(m.execute([x])[0])",
        "assert all(np.array_equal(o, want) for o in outs)",
    ),
    "bundled_verify": (
        f"""
bundle = et.load_bundled({BUNDLED_MLP!r})
case = bundle.test_cases("forward")[0]
m = bundle.program.load_method("forward")
inputs = case.inputs
def execute():
    m(*inputs)
results = []
""",
        "results.append(case.verify(method=m))",
        "assert len(results) == rounds and all(results), [str(r) for r in results if not r]",
    ),
}


@pytest.mark.parametrize("entry", sorted(CASES))
def test_entry_point_while_another_thread_executes(et, entry, tmp_path):
    setup, call, check = CASES[entry]
    code = CHILD.format(dump_after=TIMEOUT - 10, setup=setup, call=textwrap.indent(call, "    "),
                        check=check)
    try:
        r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code, str(tmp_path)],
                           capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        stderr = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        pytest.fail(f"{entry} while another thread executes the same Method did not finish "
                    f"within {TIMEOUT} s (deadlock); the child's threads:\n{stderr}")
    assert r.returncode == 0 and "finished" in r.stdout, \
        f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
