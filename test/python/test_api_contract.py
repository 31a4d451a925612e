"""The shape of the public API: load()'s signature, TensorInfo.dtype, the one spelling of the
verification level, metadata errors raised (never -1 or a skipped entry), the facade's names."""

import ast
import inspect
import os
import pathlib
import struct
import subprocess
import sys
import typing

import numpy as np
import pytest

from conftest import manifest, zoo_path
from pte_patch import PLAN_INPUTS, Pte

PRIM = zoo_path("prim_inputs.pte")
DTYPE_IO = zoo_path("dtype_io.pte")
XNN = zoo_path("mlp_xnnpack.pte")


# ---- load(): a real, annotated, documented signature ------------------------------------------
def test_load_signature_is_typed(et):
    sig = inspect.signature(et.load)
    params = sig.parameters
    assert list(params) == ["source", "verification", "data_path"]
    kinds = {n: p.kind for n, p in params.items()}
    assert kinds == {"source": inspect.Parameter.POSITIONAL_OR_KEYWORD,
                     "verification": inspect.Parameter.KEYWORD_ONLY,
                     "data_path": inspect.Parameter.KEYWORD_ONLY}
    assert params["verification"].default is et.Verification.Minimal
    assert params["data_path"].default is None
    hints = typing.get_type_hints(et.load)
    assert hints["verification"] is et.Verification
    assert hints["return"] is et.Program
    assert {str, bytes, os.PathLike[str], typing.BinaryIO} <= set(typing.get_args(hints["source"]))
    assert type(None) in typing.get_args(hints["data_path"])
    for name in params:
        assert f"{name}:" in et.load.__doc__, f"load() does not document {name}"


def _pyi_function(name):
    import executorch_runtime

    pyi = pathlib.Path(executorch_runtime.__file__).with_name("_C.pyi")
    for node in ast.parse(pyi.read_text()).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise AssertionError(f"_C.pyi has no {name}()")


def test_load_stub_matches(et):
    """_C.pyi declares load() with the same keyword-only, annotated parameters."""
    node = _pyi_function("load")
    args = node.args
    assert [a.arg for a in args.args] == ["source"]
    assert [a.arg for a in args.kwonlyargs] == ["verification", "data_path"]
    assert args.vararg is None and args.kwarg is None
    assert all(a.annotation is not None for a in args.args + args.kwonlyargs)
    assert ast.unparse(args.kwonlyargs[0].annotation) == "Verification"
    assert ast.unparse(args.kw_defaults[0]) == "Verification.Minimal"
    assert ast.unparse(node.returns) == "Program"
    doc = ast.get_docstring(node)
    assert all(f"{n}:" in doc for n in ("source", "verification", "data_path"))


# ---- TensorInfo.dtype is a numpy.dtype -------------------------------------------------------
def test_tensor_info_dtype_is_numpy(et):
    """Every tensor slot's dtype is the numpy dtype of the arrays the method takes and returns."""
    program = next(p for p in manifest()["programs"] if p["name"] == "dtype_io")
    call = program["methods"][0]["calls"][0]
    meta = et.load(DTYPE_IO).method_meta("forward")
    inputs = [np.load(zoo_path(i["file"])) for i in call["inputs"]]
    assert [i.dtype for i in meta.inputs] == [a.dtype for a in inputs]
    assert all(isinstance(i.dtype, np.dtype) for i in meta.inputs + meta.outputs)
    outputs = et.load(DTYPE_IO).load_method("forward")(*inputs)
    assert [o.dtype for o in meta.outputs] == [o.dtype for o in outputs]
    assert [o.scalar_type for o in meta.outputs] == [
        {"bool": 11, "int64": 4, "float32": 6, "int32": 3}[str(o.dtype)] for o in outputs]
    # The metadata builds the inputs: dtype goes straight into numpy.
    made = [np.ones(i.shape, dtype=i.dtype) for i in meta.inputs]
    assert [a.dtype for a in made] == [a.dtype for a in inputs]


def test_dtype_numpy_lacks_raises(et):
    """A bfloat16 tensor: dtype raises NotSupported naming the dtype; scalar_type has it."""
    pte = Pte(pathlib.Path(PRIM).read_bytes())
    pte.set_scalar_type(pte.input_tensor(pte.plan(), 0), 15)  # ScalarType::BFloat16
    info = et.load(pte.bytes()).method_meta("forward").inputs[0]
    assert info.scalar_type == 15
    with pytest.raises(et.Error, match="bfloat16, which numpy cannot represent") as e:
        info.dtype
    assert e.value.code == et.ErrorCode.NotSupported
    assert "dtype=bfloat16" in repr(info)


def test_cli_prints_numpy_dtypes(et):
    r = subprocess.run([sys.executable, "-m", "executorch_runtime", "run", DTYPE_IO],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for line in ("input 0: float32 (2, 3)", "input 1: int64 (2, 3)", "input 2: bool (2, 3)",
                 "input 3: int32 (2, 3)"):
        assert line in r.stdout


def test_cli_verification_choices(et):
    r = subprocess.run([sys.executable, "-m", "executorch_runtime", "run", PRIM,
                        "--verification", "full"], capture_output=True, text=True)
    assert r.returncode == 2 and "Minimal" in r.stderr and "InternalConsistency" in r.stderr


# ---- metadata errors are raised ----------------------------------------------------------------
def test_negative_planned_buffer_size_raises(et):
    pte = Pte(pathlib.Path(PRIM).read_bytes())
    pte.set_planned_buffer_size(pte.plan(), 0, -8)
    program = et.load(pte.bytes())
    meta = program.method_meta("forward")
    with pytest.raises(et.Error, match="planned buffer 0 of method 'forward'") as e:
        meta.planned_buffer_sizes
    assert e.value.code == et.ErrorCode.InvalidProgram
    assert "negative" in str(e.value)  # the runtime's own explanation rides along
    from executorch_runtime.runtime import Runtime

    facade_program = Runtime.get().load_program(pte.bytes(),
                                                verification=et.Verification.Minimal)
    with pytest.raises(et.Error):
        facade_program.metadata("forward").memory_planned_buffer_size(0)
    with pytest.raises(et.Error):
        program.load_method("forward")


def test_delegate_without_id_raises(et):
    pte = Pte(pathlib.Path(XNN).read_bytes())
    assert et.load(pte.bytes()).method_meta("forward").backends == ["XnnpackBackend"]
    pte.drop_delegate_id(pte.plan(), 0)
    meta = et.load(pte.bytes()).method_meta("forward")
    assert len(meta.inputs) == 1  # the rest of the metadata is intact
    with pytest.raises(et.Error, match="backend 0 of method 'forward'") as e:
        meta.backends
    assert e.value.code == et.ErrorCode.InvalidProgram


def test_input_slot_error_raises(et):
    """An input index past the plan's values: an error, not an input of kind 'None'."""
    pte = Pte(pathlib.Path(PRIM).read_bytes())
    first, _ = pte.vector(pte.plan(), PLAN_INPUTS)
    struct.pack_into("<i", pte.data, first, 1_000_000)
    meta = et.load(pte.bytes()).method_meta("forward")
    with pytest.raises(et.Error, match="input 0 of method 'forward'"):
        meta.inputs
    assert [o.kind for o in meta.outputs] == ["Tensor"]


# ---- the facade shares no name with a different object ------------------------------------------
def test_facade_names_are_distinct_or_identical(et):
    import executorch_runtime.runtime as facade

    shared = [n for n in facade.__all__ if hasattr(et, n)]
    assert shared == ["Verification"]
    for name in shared:
        assert getattr(facade, name) is getattr(et, name), name
    for name in facade.__all__:
        assert f"``{name}``" in facade.__doc__, f"the module docstring does not explain {name}"
    # Nothing public in the facade is a class of the same name as a top-level one.
    for name, obj in vars(facade).items():
        if isinstance(obj, type) and not name.startswith("_") and hasattr(et, name):
            assert obj is getattr(et, name), name
