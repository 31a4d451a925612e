"""Upstream ExecuTorch BundledProgram files (``.bpte``): a program plus test cases.

A ``.bpte`` (written by upstream's ``executorch.devtools.BundledProgram`` and
``serialize_from_bundled_program_to_flatbuffer``) holds one ``.pte`` program and, per method,
test cases: inputs and the outputs they must produce. ::

    import executorch_runtime as et
    bundle = et.load_bundled("model.bpte")
    for result in bundle.verify(rtol=1e-3, atol=1e-5):   # every case of every method
        print(result)                                   # passed, max abs/rel error
    assert all(bundle.verify())

    case = bundle.test_cases("forward")[0]
    outputs = case.run()                   # the method's outputs (numpy arrays / scalars)
    case.expected_outputs                  # what they should be
    method = bundle.program.load_method("forward")   # the program is an ordinary Program

The file is untrusted input: it is fully verified when loaded (``executorch_runtime.Error``
with ``ErrorCode.InvalidProgram`` or ``NotSupported`` otherwise). A case is run and compared
by the runtime itself (the same code as ``et_run --bundled`` and C++'s
``verify_method_outputs``): floating-point elements match when ``|actual - expected| <= atol +
rtol * |actual|``, everything else must be equal. A case that cannot be compared at all
(another dtype, shape or number of outputs) raises ``executorch_runtime.Error``.
"""

from __future__ import annotations

import dataclasses
import os
import typing

from . import _C

__all__ = ["BundledProgram", "BundledTestCase", "BundledTestResult", "load_bundled"]

# The defaults of upstream's verify_method_outputs().
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-8


@dataclasses.dataclass(frozen=True)
class BundledTestResult:
    """The verdict on one test case; true when it passed."""

    method_name: str
    index: int
    passed: bool
    max_abs_error: float
    max_rel_error: float
    mean_abs_error: float
    mean_rel_error: float

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        head = f"{self.method_name}[{self.index}]: "
        if self.passed:
            return head + "pass"
        return head + f"FAIL (max abs error {self.max_abs_error:g}, max rel error {self.max_rel_error:g})"


class BundledTestCase:
    """One test case: ``inputs`` and ``expected_outputs`` (numpy arrays and Python scalars)."""

    def __init__(self, bundle: BundledProgram, suite: int, method_name: str, index: int) -> None:
        self._bundle = bundle
        self._suite = suite
        self.method_name = method_name
        self.index = index

    @property
    def inputs(self) -> list:
        return self._bundle._file.inputs(self._suite, self.index)

    @property
    def expected_outputs(self) -> list:
        return self._bundle._file.expected_outputs(self._suite, self.index)

    def _method_for(self, method: _C.Method | None) -> _C.Method:
        if method is None:
            return self._bundle._method(self.method_name)
        # The runtime finds the test suite by the method's name: another name would run
        # another method's cases.
        if method.name != self.method_name:
            raise ValueError(f"a test case of method {self.method_name!r} cannot run on method {method.name!r}")
        return method

    def run(self, method: _C.Method | None = None) -> list:
        """Runs the method (by default the bundle's own) on the inputs; returns its outputs."""
        return self._method_for(method)(*self.inputs)

    def verify(
        self, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL, *, method: _C.Method | None = None
    ) -> BundledTestResult:
        """Runs the case and compares the outputs with the expected ones."""
        m = self._method_for(method)
        passed, mean_abs, max_abs, mean_rel, max_rel = self._bundle._file.verify(m, self.index, rtol, atol)
        return BundledTestResult(self.method_name, self.index, passed, max_abs, max_rel, mean_abs, mean_rel)

    def __repr__(self) -> str:
        return f"<BundledTestCase {self.method_name}[{self.index}]>"


class BundledProgram:
    """A loaded ``.bpte``: ``program`` (an ordinary ``Program``) and its test cases."""

    def __init__(self, data: bytes, *, verification: _C.Verification, origin: str) -> None:
        self._file = _C.BundledFile(data)
        self.origin = origin
        from . import load

        self.program: _C.Program = load(self._file.program_bytes(), verification=verification)
        self._suites = self._file.suites()
        self._methods: dict = {}

    @property
    def method_names(self) -> list:
        """The methods that have test cases, in file order."""
        return [name for name, _ in self._suites]

    def test_cases(self, method_name: str | None = None) -> list:
        """The test cases of one method, or of every method (in file order)."""
        if method_name is not None and method_name not in self.method_names:
            raise KeyError(f"no test cases for method {method_name!r}; the file has {self.method_names}")
        return [
            BundledTestCase(self, s, name, i)
            for s, (name, count) in enumerate(self._suites)
            if method_name is None or name == method_name
            for i in range(count)
        ]

    def verify(
        self, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL, *, method_name: str | None = None
    ) -> list:
        """Runs every test case (of one method, or all) and returns their ``BundledTestResult``s."""
        return [case.verify(rtol, atol) for case in self.test_cases(method_name)]

    def _method(self, name: str) -> _C.Method:
        # One Method per name, loaded on first use, shared by run() and verify().
        if name not in self._methods:
            self._methods[name] = self.program.load_method(name)
        return self._methods[name]

    def __repr__(self) -> str:
        cases = ", ".join(f"{name}: {count}" for name, count in self._suites)
        return f"<executorch_runtime.BundledProgram '{self.origin}' ({cases})>"


def load_bundled(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview | typing.BinaryIO,
    *,
    verification: _C.Verification = _C.Verification.Minimal,
) -> BundledProgram:
    """Load a ``.bpte`` file and return a ``BundledProgram``.

    Args:
        source: a path (``str`` or ``os.PathLike``), a bytes-like object or a binary file
            object; the contents are copied.
        verification: how the embedded program is checked when loaded (as in ``load()``).
            The bundle's own structure is always fully verified.

    Raises:
        OSError: the file cannot be read.
        executorch_runtime.Error: the file is not a valid bundled program, or its program is
            rejected.
    """
    if isinstance(source, (str, os.PathLike)):
        origin = os.fspath(source)
        with open(source, "rb") as f:
            data = f.read()
    elif isinstance(source, (bytes, bytearray, memoryview)):
        origin, data = "<bytes>", source
    elif callable(getattr(source, "read", None)):
        origin, data = getattr(source, "name", "<file>"), source.read()
    else:
        raise TypeError(f"load_bundled() takes a path, a bytes-like object or a binary file, got {type(source).__name__}")
    return BundledProgram(data, verification=verification, origin=str(origin))
