"""executorch_runtime.load_bundled(): upstream BundledProgram (.bpte) files from Python.

The fixtures (test/fixtures/bundled, written with upstream's BundledProgram writer by
test/bundled/export_bundled.py) and their manifest say which cases must pass; mlp_wrong's case 1
carries a wrong expected output."""

import json
import os
import pathlib

import numpy as np
import pytest

from conftest import ROOT, zoo_path

BUNDLED = pathlib.Path(os.environ.get("ET_PY_BUNDLED", os.path.join(ROOT, "test", "fixtures", "bundled")))
MANIFEST = json.loads((BUNDLED / "manifest.json").read_text())
PROGRAMS = {p["name"]: p for p in MANIFEST["programs"]}
RTOL = MANIFEST["tolerance"]["rtol"]
ATOL = MANIFEST["tolerance"]["atol"]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_case_passes_except_the_wrong_ones(et, name):
    prog = PROGRAMS[name]
    bundle = et.load_bundled(BUNDLED / prog["file"])
    # Upstream's writer orders the suites by method name.
    assert bundle.method_names == sorted(m["name"] for m in prog["methods"])
    results = bundle.verify(RTOL, ATOL)
    assert len(results) == sum(m["test_cases"] for m in prog["methods"])
    wrong = {(f["method"], f["case"]) for f in prog["failing_cases"]}
    for r in results:
        assert isinstance(r, et.BundledTestResult)
        if (r.method_name, r.index) in wrong:
            assert not r and not r.passed
            assert r.max_abs_error == pytest.approx(0.5, abs=1e-3)
            assert "FAIL (max abs error 0.5" in str(r)
        else:
            assert r, str(r)
            assert r.max_abs_error <= 1e-4


def test_cases_expose_inputs_and_expected_outputs(et):
    bundle = et.load_bundled(BUNDLED / "mlp_wrong.bpte")
    cases = bundle.test_cases("forward")
    assert [c.index for c in cases] == [0, 1, 2]
    case = cases[1]
    (x,) = case.inputs
    (want,) = case.expected_outputs
    assert x.dtype == np.float32 and x.shape == (4, 16)
    assert want.dtype == np.float32 and want.shape == (4, 10)
    (got,) = case.run()
    # The generator moved element [0, 0] by 0.5; everything else matches.
    assert got[0, 0] == pytest.approx(want[0, 0] - 0.5, abs=1e-4)
    np.testing.assert_allclose(got.ravel()[1:], want.ravel()[1:], rtol=RTOL, atol=1e-5)
    assert not case.verify(RTOL, ATOL)
    assert case.verify(atol=1.0)


def test_the_program_is_an_ordinary_program(et):
    bundle = et.load_bundled(BUNDLED / "multi_method.bpte")
    assert isinstance(bundle.program, et.Program)
    assert set(bundle.program.method_names) == {"forward", "scale", "project"}
    method = bundle.program.load_method("scale")
    case = bundle.test_cases("scale")[0]
    (got,) = method(*case.inputs)
    np.testing.assert_allclose(got, case.expected_outputs[0], rtol=RTOL, atol=ATOL)
    # A case runs on a Method the caller loaded, too.
    assert case.verify(method=method)


def test_scalar_and_integer_values(et):
    prim = et.load_bundled(BUNDLED / "prim_inputs.bpte").test_cases()[0]
    assert prim.inputs[2:] == [3, 0.5, True]
    assert [type(v) for v in prim.inputs[2:]] == [int, float, bool]
    dtypes = et.load_bundled(BUNDLED / "dtype_io.bpte").test_cases()[0]
    assert [o.dtype for o in dtypes.expected_outputs] == [
        np.bool_, np.int64, np.float32, np.int32, np.int64, np.float32]


def test_sources_path_bytes_and_file(et):
    path = BUNDLED / "mlp.bpte"
    for source in (str(path), path, path.read_bytes(), bytearray(path.read_bytes()), open(path, "rb")):
        bundle = et.load_bundled(source)
        assert all(bundle.verify(RTOL, ATOL))
    with pytest.raises(TypeError, match="load_bundled"):
        et.load_bundled(42)
    with pytest.raises(FileNotFoundError):
        et.load_bundled(BUNDLED / "none.bpte")


def test_unknown_method_is_a_key_error(et):
    bundle = et.load_bundled(BUNDLED / "mlp.bpte")
    with pytest.raises(KeyError, match="'nope'"):
        bundle.test_cases("nope")


def test_malformed_files_raise_typed_errors(et):
    data = (BUNDLED / "mlp.bpte").read_bytes()
    with pytest.raises(et.Error, match="cannot hold a header") as e:
        et.load_bundled(data[:5])
    assert e.value.code == et.ErrorCode.InvalidProgram
    with pytest.raises(et.Error, match="flatbuffer structure is invalid") as e:
        et.load_bundled(data[: len(data) // 2])
    assert e.value.code == et.ErrorCode.InvalidProgram
    with pytest.raises(et.Error, match="identifier 'ET12' is not 'BP08'") as e:
        et.load_bundled(zoo_path("mlp.pte"))
    assert e.value.code == et.ErrorCode.NotSupported


def test_a_case_that_does_not_fit_the_method_raises(et):
    # cnn's forward case run on mlp's forward method: the runtime refuses the input's rank.
    mlp_forward = et.load_bundled(BUNDLED / "mlp.bpte").program.load_method("forward")
    case = et.load_bundled(BUNDLED / "cnn.bpte").test_cases("forward")[0]
    with pytest.raises(et.Error, match="input 0 of method 'forward' has rank 2, the test case gives rank 4") as e:
        case.verify(method=mlp_forward)
    assert e.value.code == et.ErrorCode.InvalidArgument
    # A method of another name is refused before anything runs.
    scale = et.load_bundled(BUNDLED / "multi_method.bpte").program.load_method("scale")
    with pytest.raises(ValueError, match="test case of method 'forward' cannot run on method 'scale'"):
        case.verify(method=scale)
