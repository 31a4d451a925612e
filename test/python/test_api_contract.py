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
