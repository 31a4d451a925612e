"""load_method() caps the memory it allocates from sizes the program declares (planned
buffers, storage of unplanned outputs): above max_memory (default half of physical memory)
it raises Error(MemoryAllocationFailed) naming the size and the limit, before allocating.

The programs are crafted as JSON and encoded with flatc against the runtime's own schema."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

SCHEMA = os.path.join(ROOT, "runtime", "schema", "program.fbs")
HUGE_TENSOR = ('{"val_type": "Tensor", "val": {"scalar_type": "FLOAT", '
               '"sizes": [1073741824, 1073741824], "dim_order": [0, 1]}}')  # 2^62 bytes


def craft(tmp_path, name, plan):
    """A .pte with one method 'forward' described by the ExecutionPlan fields `plan`."""
    src = tmp_path / f"{name}.json"
    src.write_text('{"execution_plan": [{"name": "forward", "operators": [], "delegates": [], %s, "chains": '
                   '[{"inputs": [], "outputs": [], "instructions": []}]}]}' % plan)
    subprocess.run(["flatc", "--binary", "-o", str(tmp_path), SCHEMA, str(src)], check=True)
    return (tmp_path / f"{name}.pte").read_bytes()  # program.fbs names the extension


def planned(tmp_path, *sizes):
    return craft(tmp_path, "planned", '"values": [], "inputs": [], "outputs": [], '
                 '"non_const_buffer_sizes": [0, %s]' % ", ".join(map(str, sizes)))


def test_huge_planned_buffers_are_refused_naming_size_and_limit(et, tmp_path):
    program = et.load(planned(tmp_path, 2**62, 2**62))
    with pytest.raises(et.Error) as e:
        program.load_method("forward")
    assert e.value.code == et.ErrorCode.MemoryAllocationFailed
    msg = str(e.value)
    assert "planned buffers: 9223372036854775808 bytes" in msg, msg
    assert "exceed the memory limit of" in msg, msg
    assert "max_memory" in msg, msg
    assert "malloc" not in msg, msg  # refused before any allocation


def test_max_memory_moves_the_limit(et, tmp_path):
    program = et.load(planned(tmp_path, 1 << 20, 1 << 10))
    need = (1 << 20) + (1 << 10)
    with pytest.raises(et.Error) as e:
        program.load_method("forward", max_memory=need - 1)
    assert e.value.code == et.ErrorCode.MemoryAllocationFailed
    assert f"{need} bytes (0 already reserved) exceed the memory limit of {need - 1} bytes" \
        in str(e.value)
    assert program.load_method("forward", max_memory=need).name == "forward"


def test_overflowing_sum_is_refused(et, tmp_path):
    program = et.load(planned(tmp_path, 2**63 - 1, 2**63 - 1, 2))
    with pytest.raises(et.Error) as e:
        program.load_method("forward", max_memory=2**64 - 1)
    assert e.value.code == et.ErrorCode.MemoryAllocationFailed
    assert "more than 2^64 bytes" in str(e.value)


def test_huge_unplanned_output_is_refused(et, tmp_path):
    program = et.load(craft(tmp_path, "output", f'"values": [{HUGE_TENSOR}], "inputs": [], '
                            '"outputs": [0], "non_const_buffer_sizes": [0]'))
    with pytest.raises(et.Error) as e:
        program.load_method("forward", max_memory=1 << 30)
    assert e.value.code == et.ErrorCode.MemoryAllocationFailed
    assert ("output 0: 4611686018427387904 bytes (0 already reserved) exceed the memory "
            "limit of 1073741824 bytes") in str(e.value)
    # Below the limit, the allocation the system refuses is an error too.
    with pytest.raises(et.Error) as e:
        program.load_method("forward", max_memory=2**64 - 1)
    assert e.value.code == et.ErrorCode.MemoryAllocationFailed


@pytest.mark.parametrize("bad,exc", [(-1, ValueError), (2**64, ValueError), ("1G", TypeError),
                                     (1.5, TypeError), (True, TypeError)])
def test_max_memory_must_be_a_byte_count(et, tmp_path, bad, exc):
    program = et.load(planned(tmp_path, 16))
    with pytest.raises(exc):
        program.load_method("forward", max_memory=bad)


def test_max_memory_accepts_numpy_integers(et, tmp_path):
    import numpy as np

    program = et.load(planned(tmp_path, 64))
    assert program.load_method("forward", max_memory=np.int64(64)).name == "forward"


def test_a_method_without_outputs_runs_and_returns_nothing(et, tmp_path):
    """A method with no outputs: calling it returns an empty result instead of an error
    from reading zero outputs."""
    method = et.load(planned(tmp_path, 1 << 10)).load_method("forward")
    assert len(method()) == 0


def test_runtime_facade_takes_max_memory(et, tmp_path):
    """The upstream-style facade passes the limit through, and caches per limit."""
    from executorch_runtime.runtime import Runtime

    path = tmp_path / "p.pte"
    path.write_bytes(planned(tmp_path, 1 << 20))
    program = Runtime.get().load_program(str(path))
    with pytest.raises(et.Error) as e:
        program.load_method("forward", max_memory=1 << 10)
    assert e.value.code == et.ErrorCode.MemoryAllocationFailed
    assert program.load_method("forward", max_memory=1 << 21) is not None


def test_cli_max_memory(et, tmp_path):
    path = tmp_path / "p.pte"
    path.write_bytes(planned(tmp_path, 1 << 20))
    run = [sys.executable, "-m", "executorch_runtime", "run", str(path)]
    r = subprocess.run(run + ["--max-memory", "1K"], capture_output=True, text=True)
    assert r.returncode != 0
    assert "MemoryAllocationFailed" in r.stderr and "1024 bytes" in r.stderr, r.stderr
    r = subprocess.run(run + ["--max-memory", "2M"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(run + ["--max-memory", "lots"], capture_output=True, text=True)
    assert r.returncode != 0 and "not a byte count" in r.stderr
