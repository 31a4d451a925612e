"""Type stubs of the extension module executorch_runtime._C."""

import enum
import os
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy

__version__: str

class ErrorCode(enum.IntEnum):
    Ok = 0x00
    Internal = 0x01
    InvalidState = 0x02
    EndOfMethod = 0x03
    AlreadyLoaded = 0x04
    NotSupported = 0x10
    NotImplemented = 0x11
    InvalidArgument = 0x12
    InvalidType = 0x13
    OperatorMissing = 0x14
    RegistrationExceedingMaxKernels = 0x15
    RegistrationAlreadyRegistered = 0x16
    NotFound = 0x20
    MemoryAllocationFailed = 0x21
    AccessFailed = 0x22
    InvalidProgram = 0x23
    InvalidExternalData = 0x24
    OutOfResources = 0x25
    DelegateInvalidCompatibility = 0x30
    DelegateMemoryAllocationFailed = 0x31
    DelegateInvalidHandle = 0x32

class Error(RuntimeError):
    code: ErrorCode

class Verification(enum.IntEnum):
    Minimal = 0
    InternalConsistency = 1

class TensorInfo:
    @property
    def kind(self) -> str: ...
    @property
    def dtype(self) -> Optional[numpy.dtype]:
        """numpy dtype of a tensor, None for other kinds; Error (NotSupported) if numpy has none."""
    @property
    def scalar_type(self) -> Optional[int]:
        """The runtime's ScalarType value of a tensor (6 is Float), None for other kinds."""
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def dim_order(self) -> Tuple[int, ...]: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def memory_planned(self) -> bool: ...
    @property
    def name(self) -> str: ...

class MethodMeta:
    @property
    def name(self) -> str: ...
    @property
    def inputs(self) -> List[TensorInfo]: ...
    @property
    def outputs(self) -> List[TensorInfo]: ...
    @property
    def attributes(self) -> List[TensorInfo]: ...
    @property
    def planned_buffer_sizes(self) -> Tuple[int, ...]:
        """Bytes of each planned buffer; Error if the program's entry is invalid (negative)."""
    @property
    def backends(self) -> List[str]:
        """Backend ids of the method's delegates; Error if a delegate has no id."""
    @property
    def num_instructions(self) -> int: ...

class Method:
    @property
    def name(self) -> str: ...
    @property
    def meta(self) -> MethodMeta: ...
    def execute(self, inputs: Sequence[Any] = ()) -> List[Any]: ...
    def __call__(self, *inputs: Any) -> List[Any]: ...
    def profile_results(self) -> List[Tuple[str, int, int]]: ...
    @property
    def prepared_bytes(self) -> int:
        """Heap bytes the load-time preparation added (folded constants, batch norms folded
        into weights, packed weights); 0 with ``prepare=False``."""
    def reset_profile(self) -> None: ...
    def write_etdump(self, path: Any, debug_buffer_path: Any = None) -> None:
        """Writes the ETDump of the executions since load (or the last write) to ``path``, and
        the used part of the debug buffer to ``debug_buffer_path`` if given. Needs
        ``load_method(..., etdump=True)``."""
        ...
    def _fixed_input(self, index: int) -> Any: ...

class Program:
    @property
    def method_names(self) -> Tuple[str, ...]: ...
    @property
    def origin(self) -> str: ...
    def method_meta(self, name: str) -> MethodMeta: ...
    def load_method(
        self,
        name: str = "forward",
        *,
        profile: bool = False,
        max_memory: Optional[int] = None,
        etdump: bool = False,
        debug_buffer_size: int = 0,
        prepare: bool = True,
    ) -> Method:
        """Loads a method with its own planned memory.

        ``max_memory`` caps the bytes allocated from sizes the program declares: the sum of
        its planned buffers plus the storage of its unplanned tensor outputs. ``None`` means
        half of the machine's physical memory. A method over the cap raises
        ``Error`` with code ``ErrorCode.MemoryAllocationFailed``, naming the size and the
        limit, before anything is allocated.

        ``etdump=True`` records an ETDump (``Method.write_etdump``) for
        ``executorch.devtools.Inspector``; ``debug_buffer_size`` > 0 also logs every operator
        output into a debug buffer of that many bytes.

        ``prepare=False`` runs every instruction at every call instead of folding the
        constant-only ones, packing constant weights and fusing activations once at load; the
        results are the same.
        """
        ...
    def num_methods(self) -> int: ...
    def get_method_name(self, index: int) -> str: ...

def load(
    source: Union[str, os.PathLike[str], bytes, bytearray, memoryview],
    *,
    verification: Verification = Verification.Minimal,
    data_path: Optional[Union[str, os.PathLike[str]]] = None,
) -> Program:
    """Load a program (executorch_runtime.load also reads binary file objects).

    source: a path (memory-mapped) or a bytes-like object (copied).
    verification: a Verification member; strings and ints raise TypeError.
    data_path: a .ptd file with the program's external constants, or None.
    """
def backends() -> List[str]: ...
def is_available(name: str) -> bool: ...
def operators() -> List[str]: ...
def load_library(path: Union[str, os.PathLike]) -> None: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...

class BundledFile:
    """A verified .bpte (private: use executorch_runtime.load_bundled())."""

    def __init__(self, data: Union[bytes, bytearray, memoryview]) -> None: ...
    def program_bytes(self) -> bytes: ...
    def suites(self) -> List[Tuple[str, int]]: ...
    def inputs(self, suite: int, test_case: int) -> List[Any]: ...
    def expected_outputs(self, suite: int, test_case: int) -> List[Any]: ...
    def verify(
        self, method: Method, test_case: int, rtol: float, atol: float
    ) -> Tuple[bool, float, float, float, float]: ...
