"""executorch_runtime: run ExecuTorch ``.pte`` programs from Python.

The extension ``executorch_runtime._C`` is a thin binding over the shared runtime library
``libexecutorch.so.1`` (and the kernel library ``libexecutorch_kernels.so.1``) shipped in
``executorch_runtime/lib/``: Python and any C++ code in the same process share one kernel and
backend registry.

Quick start::

    import numpy as np, executorch_runtime as et
    program = et.load("model.pte")                    # memory-mapped
    method = program.load_method("forward")
    (y,) = method(np.ones((1, 3), dtype=np.float32))  # a list of numpy arrays

Inputs are numpy arrays, Python scalars (for int/float/bool inputs, or 0-d tensors), any
object implementing ``__dlpack__`` (torch tensors, without this package importing torch), or
array-likes numpy accepts. Non-contiguous arrays are copied. Tensor outputs are numpy arrays
that own their data; int/float/bool/None/str outputs come back as Python values.

Mistakes in the inputs raise ``TypeError`` (kind or dtype) or ``ValueError`` (count, rank,
shape beyond its bound, a value that was fixed at export); failures inside the runtime raise
``executorch_runtime.Error`` (a ``RuntimeError``) whose ``code`` is an ``ErrorCode``.

The GIL is released while programs and methods load and while methods execute; calls on one
``Method`` are serialized, separate ``Method`` objects run in parallel.

BundledProgram files (``.bpte``: a program plus test cases) load with ``load_bundled()``; see
``executorch_runtime.bundled``.

Importing this package never imports torch, and numpy only on first use.
"""

import os as _os
import typing as _typing

from ._C import (
    Error,
    ErrorCode,
    Method,
    MethodMeta,
    Program,
    TensorInfo,
    Verification,
    __version__,
    backends,
    get_num_threads,
    is_available,
    load_library,
    operators,
    set_num_threads,
)
from ._C import load as _load
from .bundled import BundledProgram, BundledTestCase, BundledTestResult, load_bundled

__all__ = [
    "BundledProgram",
    "BundledTestCase",
    "BundledTestResult",
    "Error",
    "ErrorCode",
    "Method",
    "MethodMeta",
    "Program",
    "TensorInfo",
    "Verification",
    "__version__",
    "backends",
    "cmake_prefix_path",
    "get_include",
    "get_library_dir",
    "get_num_threads",
    "is_available",
    "load",
    "load_bundled",
    "load_library",
    "operators",
    "set_num_threads",
]

_PACKAGE_DIR = _os.path.dirname(_os.path.abspath(__file__))


def load(
    source: str | _os.PathLike[str] | bytes | bytearray | memoryview | _typing.BinaryIO,
    *,
    verification: Verification = Verification.Minimal,
    data_path: str | _os.PathLike[str] | None = None,
) -> Program:
    """Load a ``.pte`` program and return a ``Program``.

    Args:
        source: a path (``str`` or ``os.PathLike``; the file is memory-mapped), a bytes-like
            object (copied, so the caller may reuse its buffer), or a binary file object (read
            to its end).
        verification: how thoroughly the program is checked while loading, a ``Verification``
            member: ``Verification.Minimal`` (the default) or
            ``Verification.InternalConsistency``. Nothing else is accepted: strings and ints
            raise ``TypeError``.
        data_path: a ``.ptd`` file holding the program's external constants, or ``None``.

    Raises:
        TypeError: ``source`` or ``verification`` is of the wrong kind.
        OSError: the file cannot be opened (``FileNotFoundError``, ``PermissionError``, ...).
        executorch_runtime.Error: the runtime rejected the program or data file.
    """
    if (
        not isinstance(source, (str, bytes, bytearray, memoryview))
        and not hasattr(source, "__fspath__")
        and callable(getattr(source, "read", None))
    ):
        source = source.read()
    return _load(source, verification=verification, data_path=data_path)


def get_include():
    """The directory to add to the include path: ``<executorch/runtime/...>`` lives under it."""
    return _os.path.join(_PACKAGE_DIR, "include")


def get_library_dir():
    """The directory holding ``libexecutorch.so.1`` and ``libexecutorch_kernels.so.1``."""
    return _os.path.join(_PACKAGE_DIR, "lib")


def cmake_prefix_path():
    """A directory for ``CMAKE_PREFIX_PATH``, so ``find_package(executorch)`` finds the package."""
    return _os.path.join(_PACKAGE_DIR, "share", "cmake")
