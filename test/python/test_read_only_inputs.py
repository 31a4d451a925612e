"""Read-only inputs: bound without a copy when the method only reads them, refused with a
ValueError before anything runs when the method writes them in place.

unplanned_io.pte computes x * y + x with inputs the caller binds (alloc_graph_input=False).
Its last instruction, add.out(t, x, alpha, out, out), is patched to write into input x (the
places an out variant writes: its out argument and the return slot), so the method writes
the caller's x and only reads y.
"""

import pathlib

import numpy as np
import pytest

from conftest import zoo_path
from pte_patch import Pte


def _writes_first_input():
    pte = Pte(pathlib.Path(zoo_path("unplanned_io.pte")).read_bytes())
    plan = pte.plan()
    x = pte.input_values(plan)[0]
    _, n = pte.kernel_call_args(plan)
    assert n == 5, "add.out(self, other, alpha, out, return slot)"
    pte.set_kernel_call_arg(plan, 3, x)
    pte.set_kernel_call_arg(plan, 4, x)
    return pte.bytes()


def _inputs():
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    y = np.full((2, 4), 3.0, dtype=np.float32)
    return x, y


class _DLPackOnly:
    """Hands out an array only through DLPack (numpy marks a read-only array's capsule so)."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack__(self, **kw):
        return self.arr.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


def test_written_input_is_refused_when_read_only(et):
    method = et.load(_writes_first_input()).load_method("forward")
    x, y = _inputs()
    x.flags.writeable = False
    with pytest.raises(ValueError, match="input 0: the method writes this input in place"):
        method(x, y)
    assert np.array_equal(x, np.arange(8, dtype=np.float32).reshape(2, 4))


def test_written_input_is_refused_when_dlpack_says_read_only(et):
    method = et.load(_writes_first_input()).load_method("forward")
    x, y = _inputs()
    x.flags.writeable = False
    with pytest.raises(ValueError, match="input 0: the method writes this input in place"):
        method(_DLPackOnly(x), y)


def test_written_input_is_written_in_place_when_writable(et):
    method = et.load(_writes_first_input()).load_method("forward")
    x, y = _inputs()
    expected = x * y + x
    method(x, y)
    assert np.array_equal(x, expected)


def test_input_only_read_is_bound_read_only(et):
    method = et.load(_writes_first_input()).load_method("forward")
    x, y = _inputs()
    y.flags.writeable = False
    method(x, y)
    assert np.array_equal(y, np.full((2, 4), 3.0, dtype=np.float32))
    method = et.load(zoo_path("unplanned_io.pte")).load_method("forward")
    x, y = _inputs()
    x.flags.writeable = False
    out = method(x, _DLPackOnly(y))
    assert np.array_equal(out[0], x * y + x)
