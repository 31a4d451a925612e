"""set_num_threads() / get_num_threads(): the size of the process thread pool the CPU kernels
split their work across (ET_NUM_THREADS, the affinity mask), no worker thread at all with one
thread, and the same outputs at any thread count."""

import os

import pytest

from conftest import assert_isolated_ok, zoo_path

# Runs the cnn zoo model's first recorded call in a fresh interpreter and prints the thread
# count of the process before and after, the pool size, and the output bytes' hash.
_RUN_CNN = """
import hashlib, json, os, numpy as np, executorch_runtime as et
def threads():
    return len(os.listdir("/proc/self/task"))
zoo = os.environ["ET_PY_ZOO"]
(p,) = [p for p in json.load(open(os.path.join(zoo, "manifest.json")))["programs"]
        if p["name"] == "cnn"]
inputs = [np.load(os.path.join(zoo, i["file"])) for i in p["methods"][0]["calls"][0]["inputs"]]
method = et.load(os.path.join(zoo, p["file"])).load_method("forward")
before = threads()
for _ in range(3):
    (y,) = method(*inputs)
print(before, threads(), et.get_num_threads(), hashlib.sha256(y.tobytes()).hexdigest())
"""


def _run_cnn(**env):
    env.setdefault("ET_PY_ZOO", os.path.dirname(zoo_path("manifest.json")))
    before, after, size, digest = assert_isolated_ok(_RUN_CNN, env=env).stdout.split()
    return int(before), int(after), int(size), digest


def test_default_is_the_affinity_mask():
    # An empty ET_NUM_THREADS counts as unset.
    assert_isolated_ok(
        "import os, executorch_runtime as et\n"
        "assert et.get_num_threads() == len(os.sched_getaffinity(0)), et.get_num_threads()\n",
        env={"ET_NUM_THREADS": ""})


def test_set_and_get(et):
    try:
        et.set_num_threads(3)
        assert et.get_num_threads() == 3
        et.set_num_threads(0)
        assert et.get_num_threads() == len(os.sched_getaffinity(0))
        for bad in (-1, 100000):
            with pytest.raises(ValueError, match="thread count"):
                et.set_num_threads(bad)
        with pytest.raises(TypeError):
            et.set_num_threads("2")
    finally:
        et.set_num_threads(0)


def test_one_thread_creates_no_thread():
    # Every loop would split if it could (chunk minimum one item): still no thread appears.
    before, after, size, _ = _run_cnn(ET_NUM_THREADS="1", ET_KERNELS_MIN_PARALLEL_WORK="1")
    assert size == 1
    assert after == before


def test_two_threads_start_one_worker_and_match_one_thread():
    _, _, _, one = _run_cnn(ET_NUM_THREADS="1", ET_KERNELS_MIN_PARALLEL_WORK="1")
    for n in (2, 3):
        before, after, size, digest = _run_cnn(ET_NUM_THREADS=str(n),
                                               ET_KERNELS_MIN_PARALLEL_WORK="1")
        assert size == n
        assert after == before + n - 1  # the caller is one of the n
        assert digest == one, f"outputs differ at {n} threads"
