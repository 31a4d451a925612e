"""ETDump recording from Python: load_method(..., etdump=True) and Method.write_etdump.

The file is read back with flatc (a build dependency) and our schema copy; the C++ tests
(test/unit/etdump, check-tools-etdump) run the flatbuffers Verifier on the same format.
"""

import json
import os
import subprocess
from collections import Counter

import numpy as np
import pytest

from conftest import ROOT, zoo_path

SCHEMA = os.path.join(ROOT, "runtime", "schema", "etdump_schema_flatcc.fbs")


def read_etdump(path, tmp_path):
    """The ETDump at `path` as JSON (flatc converts the size-prefixed binary)."""
    out = tmp_path / "json"
    subprocess.run(["flatc", "--json", "--strict-json", "--size-prefixed", "--raw-binary",
                    "-o", str(out), SCHEMA, "--", str(path)], check=True)
    (name,) = os.listdir(out)
    with open(out / name) as f:
        return json.load(f)


def operator_counts(dump):
    """Operator events (inside an instruction) summed over the runs."""
    return Counter(e["profile_event"]["name"]
                   for run in dump["run_data"] for e in run["events"]
                   if "profile_event" in e and e["profile_event"].get("chain_index", 0) >= 0
                   and "name" in e["profile_event"])


def test_etdump_records_one_run_per_execute_with_the_profiled_operators(et, tmp_path):
    x = np.ones((4, 16), dtype=np.float32)
    profiled = et.load(zoo_path("mlp.pte")).load_method("forward", profile=True)
    traced = et.load(zoo_path("mlp.pte")).load_method("forward", etdump=True)
    for _ in range(3):
        np.testing.assert_array_equal(traced(x)[0], profiled(x)[0])  # same results
    traced.write_etdump(tmp_path / "mlp.etdp")
    dump = read_etdump(tmp_path / "mlp.etdp", tmp_path)
    assert [r["name"] for r in dump["run_data"]] == ["Execute"] * 3
    assert operator_counts(dump) == {name: calls for name, calls, _ in profiled.profile_results()}


def test_write_etdump_starts_over_and_logs_values_with_a_debug_buffer(et, tmp_path):
    m = et.load(zoo_path("mlp.pte")).load_method("forward", etdump=True,
                                                   debug_buffer_size=1 << 20)
    (y,) = m(np.ones((4, 16), dtype=np.float32))
    m.write_etdump(str(tmp_path / "a.etdp"), debug_buffer_path=tmp_path / "a.bin")
    (y2,) = m(np.full((4, 16), 2.0, dtype=np.float32))
    m.write_etdump(tmp_path / "b.etdp", tmp_path / "b.bin")
    for name, expected in (("a", y), ("b", y2)):
        dump = read_etdump(tmp_path / f"{name}.etdp", tmp_path / name)
        assert len(dump["run_data"]) == 1  # the runs since the previous write only
        values = [e["debug_event"]["debug_entry"] for e in dump["run_data"][0]["events"]
                  if "debug_event" in e]
        (out,) = [v for v in values if v.get("output", {}).get("bool_val")]
        debug = (tmp_path / f"{name}.bin").read_bytes()
        start = out["tensor"].get("offset", 0)
        got = np.frombuffer(debug[start:start + expected.nbytes], dtype=np.float32)
        np.testing.assert_array_equal(got.reshape(expected.shape), expected)


def test_etdump_errors(et, tmp_path):
    p = et.load(zoo_path("mlp.pte"))
    with pytest.raises(ValueError, match="etdump=True"):
        p.load_method("forward").write_etdump(tmp_path / "x.etdp")
    with pytest.raises(ValueError, match="not been executed"):
        p.load_method("forward", etdump=True).write_etdump(tmp_path / "x.etdp")
    with pytest.raises(ValueError, match="cannot be combined"):
        p.load_method("forward", etdump=True, profile=True)
    with pytest.raises(ValueError, match="needs etdump=True"):
        p.load_method("forward", debug_buffer_size=1024)
    m = p.load_method("forward", etdump=True)
    m(np.ones((4, 16), dtype=np.float32))
    with pytest.raises(OSError):
        m.write_etdump(tmp_path / "no" / "such" / "dir.etdp")


def test_runtime_facade_records_an_etdump(tmp_path):
    from executorch_runtime.runtime import Runtime

    program = Runtime.get().load_program(zoo_path("mlp.pte"))
    method = program.load_method("forward", etdump=True)
    method.execute([np.ones((4, 16), dtype=np.float32)])
    method.write_etdump(tmp_path / "f.etdp")
    dump = read_etdump(tmp_path / "f.etdp", tmp_path)
    assert len(dump["run_data"]) == 1
    assert sum(operator_counts(dump).values()) > 0


def test_upstream_style_load_program_with_etdump(tmp_path):
    from executorch_runtime.runtime import Runtime

    program = Runtime.get().load_program(zoo_path("mlp.pte"), enable_etdump=True,
                                         debug_buffer_size=1 << 16)
    program.load_method("forward").execute([np.ones((4, 16), dtype=np.float32)])
    program.write_etdump_result_to_file(tmp_path / "p.etdp", tmp_path / "p.bin")
    dump = read_etdump(tmp_path / "p.etdp", tmp_path)
    assert len(dump["run_data"]) == 1
    assert (tmp_path / "p.bin").stat().st_size > 0
    with pytest.raises(ValueError, match="exactly one method"):
        Runtime.get().load_program(zoo_path("mlp.pte")).write_etdump_result_to_file("x", "y")
    with pytest.raises(ValueError, match="enable_etdump"):
        Runtime.get().load_program(zoo_path("mlp.pte"), debug_buffer_size=16)
