"""The GIL is released while loading and executing: separate Methods run from separate
threads and give correct results; one Method shared by threads is serialized.

make check also runs this file under ThreadSanitizer (mk/test-tsan.mk)."""

import sys
import threading
import time

import numpy as np

from conftest import manifest, zoo_path

# Small compute models (linear, conv, recurrent, elementwise, unplanned outputs): different
# kernels running at the same time.
ZOO_MODELS = ("mlp", "cnn", "gru", "multi_method", "unplanned_io")


def _first_call_inputs(name):
    (program,) = [p for p in manifest()["programs"] if p["name"] == name]
    (method,) = [m for m in program["methods"] if m["name"] == "forward"]
    return zoo_path(program["file"]), [np.load(zoo_path(i["file"]), allow_pickle=False)
                                      for i in method["calls"][0]["inputs"]]


def _run_threads(worker, count):
    """Runs worker(k) on `count` threads at once; fails with every exception they raised."""
    errors = []

    def guarded(k):
        try:
            worker(k)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_threads_run_zoo_models_like_one_thread(et):
    """Several zoo methods executing at once from Python threads (the GIL is released) give
    exactly the outputs of a single-threaded run."""
    cases = [_first_call_inputs(name) for name in ZOO_MODELS]
    programs = [et.load(path) for path, _ in cases]
    expected = [p.load_method("forward")(*inputs) for p, (_, inputs) in zip(programs, cases)]
    start = threading.Barrier(4, timeout=60)

    def worker(k):
        # Own Methods per thread, loaded concurrently from the shared Programs; each thread
        # starts at a different model.
        methods = [p.load_method("forward") for p in programs]
        start.wait()
        for r in range(10):
            for j in range(len(cases)):
                i = (j + k) % len(cases)
                outs = methods[i](*cases[i][1])
                assert len(outs) == len(expected[i]), ZOO_MODELS[i]
                for got, want in zip(outs, expected[i]):
                    assert np.array_equal(got, want), f"{ZOO_MODELS[i]} round {r}"

    _run_threads(worker, 4)


def test_threads_separate_methods(et):
    prog = et.load(zoo_path("identity.pte"))

    def worker(k):
        m = prog.load_method("forward")
        for i in range(200):
            a = np.full((2, 3), k * 1000 + i, np.float32)
            b = np.full((4,), -k, np.float32)
            out = m(a, b)
            assert np.array_equal(out[0], a) and np.array_equal(out[1], b)

    _run_threads(worker, 8)


def test_threads_share_one_method(et):
    m = et.load(zoo_path("identity.pte")).load_method("forward")

    def worker(k):
        for i in range(200):
            a = np.full((2, 3), k + i, np.float32)
            out = m(a, np.zeros(4, np.float32))
            assert np.array_equal(out[0], a)

    _run_threads(worker, 4)


def test_gil_released_during_execute(et):
    """While one thread executes a heavy model, another thread keeps running Python."""
    ops = set(et.operators())
    p = et.load(zoo_path("resnet18.pte"))
    missing = {"aten::convolution.out", "aten::addmm.out"} - ops
    if missing:
        import pytest

        pytest.skip(f"kernel library lacks {sorted(missing)}")
    m = p.load_method("forward")
    x = np.ones((1, 3, 32, 32), np.float32)
    m(x)
    # With a switch interval of an hour, the interpreter never takes the GIL from a running
    # thread: the main thread can only run while the worker waits outside Python, that is,
    # inside m(x) if the call releases the GIL. So a tick that lands during a call proves the
    # release, whatever the machine's load; without it the worker gives up after 10 s.
    ticks = 0
    ticked_during_call = threading.Event()
    done = threading.Event()

    def run():
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            before = ticks
            m(x)
            if ticks != before:
                ticked_during_call.set()
                break
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(3600.0)
    try:
        t = threading.Thread(target=run)
        t.start()
        while not done.is_set():
            ticks += 1
            time.sleep(0.0005)  # lets the worker back in between its calls
        t.join()
    finally:
        sys.setswitchinterval(old)
    assert ticked_during_call.is_set(), "the main thread never ran during an execute call"
