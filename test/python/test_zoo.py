"""Every zoo program, every method, every recorded call, through Python, against its goldens."""

import os

import numpy as np
import pytest

from conftest import manifest, zoo_path

MANIFEST = manifest()
CASES = [(p, m) for p in MANIFEST["programs"] for m in p["methods"]]


def _value(item):
    if item["kind"] == "tensor":
        return np.load(zoo_path(item["file"]), allow_pickle=False)
    if item["kind"] == "none":
        return None
    return item["value"]


@pytest.mark.parametrize("program,method", CASES, ids=[f"{p['name']}.{m['name']}" for p, m in CASES])
def test_zoo_goldens(et, program, method):
    missing_backends = [b for b in program["backend_ids"] if b not in et.backends()]
    if missing_backends:
        pytest.skip(f"backend(s) not registered in this build: {missing_backends}")
    ops = set(et.operators())
    missing_ops = sorted(set(method["operators"]) - ops)
    if missing_ops:
        pytest.skip(f"kernel library lacks {missing_ops}")
    data = [zoo_path(d) for d in program["data_files"]]
    prog = et.load(zoo_path(program["file"]), data_path=data[0] if data else None)
    assert method["name"] in prog.method_names
    m = prog.load_method(method["name"])
    assert len(m.meta.inputs) == method["num_inputs"]
    assert len(m.meta.outputs) == method["num_outputs"]
    tol = program["tolerance"]
    for n, call in enumerate(method["calls"]):
        outs = m(*[_value(i) for i in call["inputs"]])
        assert len(outs) == len(call["outputs"]), f"call {n}"
        for k, (got, exp) in enumerate(zip(outs, call["outputs"])):
            want = _value(exp)
            where = f"call {n} output {k}"
            if exp["kind"] == "tensor":
                assert isinstance(got, np.ndarray), where
                assert got.dtype == want.dtype, where
                assert got.shape == want.shape, where
                if got.dtype.kind in "fc":
                    assert np.allclose(got, want, atol=tol["atol"], rtol=tol["rtol"]), where
                else:
                    assert np.array_equal(got, want), where
            elif exp["kind"] == "double":
                assert got == pytest.approx(want), where
            else:
                assert got == want and type(got) is type(want), where


def test_prim_only_programs_run(et):
    """Programs that need no model kernels run whatever the kernel library holds."""
    m = et.load(zoo_path("identity.pte")).load_method("forward")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(4, dtype=np.float32)
    out = m(a, b)
    assert np.array_equal(out[0], a) and np.array_equal(out[1], b)
    p = et.load(zoo_path("constant_methods.pte"))
    assert p.load_method("get_int")() == [7]
    assert p.load_method("get_float")() == [0.25]
    assert p.load_method("get_bool")() == [True]
    (t,) = p.load_method("get_tensor")()
    assert t.shape == (2, 3) and t.dtype == np.float32
