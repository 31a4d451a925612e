"""Inputs through the __dlpack__ protocol (own import of DLPack capsules, both versions)."""

import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, zoo_path

IDENTITY = zoo_path("identity.pte")
B = np.ones(4, np.float32)


class Producer:
    """Exposes only the DLPack protocol of a numpy array (numpy makes the capsules)."""

    def __init__(self, array, versioned=True, device=(1, 0)):
        self.array = array
        self.versioned = versioned
        self.device = device
        self.calls = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, *, stream=None, max_version=None, **kw):
        self.calls.append(max_version)
        if not self.versioned:
            if max_version is not None:
                raise TypeError("old producer: no max_version")
            return self.array.__dlpack__()
        return self.array.__dlpack__(max_version=max_version)


@pytest.fixture(scope="module")
def ident(et):
    return et.load(IDENTITY).load_method("forward")


@pytest.mark.parametrize("versioned", [True, False])
def test_dlpack_roundtrip(ident, versioned):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    prod = Producer(a, versioned=versioned)
    out = ident(prod, B)
    assert np.array_equal(out[0], a)
    assert prod.calls[0] == (1, 0)  # asked for a versioned capsule first


def test_dlpack_strided_is_copied(ident):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    for a in (base[::2, ::2], base[:2, :3].T.copy().T, base[:2, 3:]):
        assert np.array_equal(ident(Producer(a), B)[0], a)


def test_dlpack_dtype_and_shape_checked(ident):
    with pytest.raises(TypeError, match="expected dtype float32, got float64"):
        ident(Producer(np.ones((2, 3))), B)
    with pytest.raises(ValueError, match="expected rank 2"):
        ident(Producer(np.ones(6, np.float32)), B)


def test_dlpack_device_refused(ident):
    with pytest.raises(TypeError, match="device 'cuda'"):
        ident(Producer(np.ones((2, 3), np.float32), device=(2, 0)), B)


def test_dlpack_releases_producer_memory(ident):
    import gc
    import weakref

    a = np.ones((2, 3), np.float32)
    ref = weakref.ref(a)
    ident(Producer(a), B)
    del a
    gc.collect()
    assert ref() is None  # the deleter ran: no leaked reference


def _torch_python():
    cand = os.environ.get("ET_PY_TORCH_PYTHON") or os.path.join(ROOT, "build", "zoo-venv", "bin", "python")
    if os.path.exists(cand):
        r = subprocess.run([cand, "-c", "import torch, numpy"], capture_output=True)
        if r.returncode == 0:
            return cand
    return None


def test_torch_tensors():
    """torch tensors work (via __dlpack__) in an interpreter that has torch; the package itself
    never imports it. Uses the zoo venv's interpreter when present."""
    py = _torch_python()
    if py is None:
        pytest.skip("no interpreter with torch (build/zoo-venv or ET_PY_TORCH_PYTHON)")
    code = f"""
import sys, numpy as np
import executorch_runtime as et
assert "torch" not in sys.modules
import torch
m = et.load({IDENTITY!r}).load_method("forward")
a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
out = m(a, torch.ones(4))
assert np.array_equal(out[0], a.numpy())
out = m(torch.arange(12, dtype=torch.float32).reshape(3, 4).t()[:2, :3], torch.ones(4))
assert out[0].shape == (2, 3)
try:
    m(torch.ones(2, 3, dtype=torch.float64), torch.ones(4)); raise SystemExit("no error")
except TypeError as e:
    assert "float64" in str(e)
try:
    m(torch.ones(2, 3, requires_grad=True), torch.ones(4))
except (RuntimeError, TypeError, BufferError):
    pass
from executorch_runtime.runtime import Runtime
outs = Runtime.get().load_program({IDENTITY!r}).load_method("forward").execute([a, torch.ones(4)])
assert isinstance(outs[0], torch.Tensor) and torch.equal(outs[0], a)
print("ok")
"""
    env = dict(os.environ)
    r = subprocess.run([py, "-X", "faulthandler", "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr


def misaligned(a):
    """A C-contiguous copy of `a` that starts one byte past an aligned address."""
    raw = np.zeros(a.nbytes + 1, np.uint8)
    out = np.frombuffer(raw.data, dtype=a.dtype, count=a.size, offset=1).reshape(a.shape)
    out[...] = a
    assert out.flags.c_contiguous and not out.flags.aligned
    return out


def test_misaligned_inputs_are_copied_aligned(ident):
    """Kernels load whole elements: a misaligned array, numpy or DLPack, reaches them through an
    aligned copy (UBSan reports the misaligned loads otherwise: test/fuzz/regressions/python_call)
    and gives the same result."""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert np.array_equal(ident(misaligned(a), B)[0], a)
    assert np.array_equal(ident(Producer(misaligned(a)), B)[0], a)
