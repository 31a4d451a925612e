"""An interface shaped like upstream ExecuTorch's ``executorch.runtime`` module.

A script written for upstream runs after changing its imports::

    from executorch_runtime.runtime import Runtime, Verification

    runtime = Runtime.get()
    program = runtime.load_program("model.pte", verification=Verification.Minimal)
    method = program.load_method("forward")
    outputs = method.execute([x])

Names. Upstream's module defines ``Runtime``, ``Program``, ``Method``, ``BackendRegistry`` and
``OperatorRegistry`` and takes ``Verification`` (and ``MethodMeta``) from its extension. The
top-level package ``executorch_runtime`` has its own ``Program``, ``Method``, ``MethodMeta`` and
``TensorInfo`` with a different shape (properties where upstream has methods, a
``numpy.dtype`` where upstream has a ScalarType int, a tuple of method names where upstream has a
set, a fresh ``Method`` per ``load_method`` call where upstream caches one). One class cannot be
both (making them the same objects would force both shapes onto one class), so the classes of
this module carry their own names and no name means two things in this package:

    this module                  upstream
    ``Runtime``                  ``executorch.runtime.Runtime``
    ``RuntimeProgram``           ``executorch.runtime.Program``
    ``RuntimeMethod``            ``executorch.runtime.Method``
    ``RuntimeMethodMeta``        the extension's ``MethodMeta``
    ``RuntimeTensorInfo``        the extension's ``TensorInfo``
    ``BackendRegistry``          ``executorch.runtime.BackendRegistry``
    ``OperatorRegistry``         ``executorch.runtime.OperatorRegistry``
    ``Verification``             ``Verification`` (this one is ``executorch_runtime.Verification``)

A script that names upstream's classes in annotations imports
``RuntimeProgram as Program, RuntimeMethod as Method``.

Differences: outputs are numpy arrays, except that when torch is already imported and an input
was a ``torch.Tensor`` they are converted with ``torch.from_numpy`` (no copy); ETDump is not
supported; ``verification`` takes only a ``Verification`` member.
"""

import functools
import os
import sys
from typing import Any, BinaryIO, List, Optional, Sequence, Set, Union

from . import _C
from ._C import Verification

__all__ = [
    "BackendRegistry",
    "OperatorRegistry",
    "Runtime",
    "RuntimeMethod",
    "RuntimeMethodMeta",
    "RuntimeProgram",
    "RuntimeTensorInfo",
    "Verification",
]

# ScalarType names by value, for upstream-style reprs.
_SCALAR_TYPE_NAMES = (
    "Byte Char Short Int Long Half Float Double ComplexHalf ComplexFloat ComplexDouble Bool "
    "QInt8 QUInt8 QInt32 BFloat16 QUInt4x2 QUInt2x4 Bits1x8 Bits2x4 Bits4x2 Bits8 Bits16 "
    "Float8_e5m2 Float8_e4m3fn Float8_e5m2fnuz Float8_e4m3fnuz UInt16 UInt32 UInt64"
).split()


class RuntimeTensorInfo:
    """Upstream-style view of one tensor slot: ``sizes()``, ``dtype()``, ... as methods."""

    def __init__(self, info: "_C.TensorInfo") -> None:
        self._info = info

    def sizes(self) -> tuple:
        return self._info.shape

    def dtype(self) -> int:
        return self._info.scalar_type

    def is_memory_planned(self) -> bool:
        return self._info.memory_planned

    def nbytes(self) -> int:
        return self._info.nbytes

    def __repr__(self) -> str:
        st = self._info.scalar_type
        name = _SCALAR_TYPE_NAMES[st] if st is not None and 0 <= st < len(_SCALAR_TYPE_NAMES) else st
        return (
            f"TensorInfo(sizes={list(self._info.shape)}, dtype={name}, "
            f"is_memory_planned={self._info.memory_planned}, nbytes={self._info.nbytes})"
        )


class RuntimeMethodMeta:
    """Upstream-style method metadata (methods rather than properties)."""

    def __init__(self, meta: "_C.MethodMeta") -> None:
        self._meta = meta
        self._inputs = meta.inputs
        self._outputs = meta.outputs

    def name(self) -> str:
        return self._meta.name

    def num_inputs(self) -> int:
        return len(self._inputs)

    def num_outputs(self) -> int:
        return len(self._outputs)

    def num_attributes(self) -> int:
        return len(self._meta.attributes)

    @staticmethod
    def _tensor(infos, index: int, what: str) -> RuntimeTensorInfo:
        if not 0 <= index < len(infos):
            raise IndexError(f"{what} index {index} out of range (there are {len(infos)})")
        if infos[index].kind != "Tensor":
            raise RuntimeError(f"{what} {index} is not a tensor (it is {infos[index].kind})")
        return RuntimeTensorInfo(infos[index])

    def input_tensor_meta(self, index: int) -> RuntimeTensorInfo:
        return self._tensor(self._inputs, index, "input")

    def output_tensor_meta(self, index: int) -> RuntimeTensorInfo:
        return self._tensor(self._outputs, index, "output")

    def attribute_tensor_meta(self, index: int) -> RuntimeTensorInfo:
        return self._tensor(self._meta.attributes, index, "attribute")

    def num_memory_planned_buffers(self) -> int:
        return len(self._meta.planned_buffer_sizes)

    def memory_planned_buffer_size(self, index: int) -> int:
        return self._meta.planned_buffer_sizes[index]

    def __repr__(self) -> str:
        def metas(infos):
            return [repr(RuntimeTensorInfo(i)) if i.kind == "Tensor" else i.kind for i in infos]

        return (
            f"MethodMeta(name='{self.name()}', num_inputs={self.num_inputs()}, "
            f"input_tensor_meta={metas(self._inputs)}, num_outputs={self.num_outputs()}, "
            f"output_tensor_meta={metas(self._outputs)})"
        )


def _torch_outputs(inputs: Sequence[Any], outputs: List[Any]) -> List[Any]:
    torch = sys.modules.get("torch")
    if torch is None or not any(isinstance(x, torch.Tensor) for x in inputs):
        return outputs
    np = sys.modules["numpy"]
    return [torch.from_numpy(o) if isinstance(o, np.ndarray) else o for o in outputs]


class RuntimeMethod:
    """A loaded method: ``execute(inputs)`` runs it."""

    def __init__(self, method: "_C.Method") -> None:
        self._method = method

    def execute(self, inputs: Sequence[Any]) -> Sequence[Any]:
        return _torch_outputs(inputs, self._method.execute(inputs))

    @property
    def metadata(self) -> RuntimeMethodMeta:
        return RuntimeMethodMeta(self._method.meta)

    def write_etdump(self, path: Any, debug_buffer_path: Any = None) -> None:
        """Writes the ETDump of the executions since load or the last write (the method was
        loaded with ``etdump=True``)."""
        self._method.write_etdump(path, debug_buffer_path)


class RuntimeProgram:
    """A loaded program: ``method_names``, ``load_method(name)``, ``metadata(name)``."""

    def __init__(
        self,
        program: "_C.Program",
        data: Optional[bytes],
        *,
        enable_etdump: bool = False,
        debug_buffer_size: int = 0,
    ) -> None:
        self._program = program
        self._data = data
        self._methods = {}
        # load_program(enable_etdump=True): every method records an ETDump by default.
        self._etdump = enable_etdump
        self._debug_buffer_size = debug_buffer_size

    @property
    def method_names(self) -> Set[str]:
        return set(self._program.method_names)

    def load_method(
        self,
        name: str,
        *,
        max_memory: Optional[int] = None,
        etdump: Optional[bool] = None,
        debug_buffer_size: Optional[int] = None,
    ) -> Optional[RuntimeMethod]:
        """The method `name`, loaded once per set of options. ``max_memory`` caps the memory
        sized from the program (planned buffers, unplanned outputs), as ``Program.load_method``
        does; None keeps that default. ``etdump``/``debug_buffer_size`` record an ETDump
        (``RuntimeMethod.write_etdump``); None takes ``load_program``'s ``enable_etdump`` and
        ``debug_buffer_size``."""
        etdump = self._etdump if etdump is None else etdump
        debug_buffer_size = self._debug_buffer_size if debug_buffer_size is None else debug_buffer_size
        key = (name, max_memory, etdump, debug_buffer_size)
        method = self._methods.get(key)
        if method is None:
            method = RuntimeMethod(
                self._program.load_method(
                    name,
                    max_memory=max_memory,
                    etdump=etdump,
                    debug_buffer_size=debug_buffer_size,
                )
            )
            self._methods[key] = method
        return method

    def metadata(self, method_name: str) -> RuntimeMethodMeta:
        return RuntimeMethodMeta(self._program.method_meta(method_name))

    def write_etdump_result_to_file(self, etdump_path: Any, debug_buffer_path: Any) -> None:
        """Writes the ETDump of the one traced method (upstream's Program API; each of our
        methods has its own ETDump, so with several use ``RuntimeMethod.write_etdump``)."""
        traced = [m for key, m in self._methods.items() if key[2]]
        if len(traced) != 1:
            raise ValueError(
                f"write_etdump_result_to_file needs exactly one method loaded with ETDump, "
                f"found {len(traced)}; use RuntimeMethod.write_etdump per method"
            )
        traced[0].write_etdump(etdump_path, debug_buffer_path)


class BackendRegistry:
    """The registered backends of the process-wide registry."""

    def __init__(self, legacy_module=_C) -> None:
        self._module = legacy_module

    @property
    def registered_backend_names(self) -> List[str]:
        return list(self._module.backends())

    def is_available(self, backend_name: str) -> bool:
        return self._module.is_available(backend_name)


class OperatorRegistry:
    """The registered operators of the process-wide registry."""

    def __init__(self, legacy_module=_C) -> None:
        self._module = legacy_module

    @property
    def operator_names(self) -> Set[str]:
        return set(self._module.operators())


class Runtime:
    """The process-wide runtime: ``Runtime.get()``."""

    @staticmethod
    @functools.lru_cache(maxsize=1)
    def get() -> "Runtime":
        return Runtime(legacy_module=_C)

    def __init__(self, *, legacy_module=_C) -> None:
        self._legacy_module = legacy_module
        self.backend_registry = BackendRegistry(legacy_module)
        self.operator_registry = OperatorRegistry(legacy_module)

    def load_program(
        self,
        data: Union[bytes, bytearray, BinaryIO, os.PathLike, str],
        *,
        verification: Verification = Verification.InternalConsistency,
        enable_etdump: bool = False,
        debug_buffer_size: int = 0,
        data_path: Optional[Union[os.PathLike, str]] = None,
    ) -> RuntimeProgram:
        """Loads a program from a path, bytes or a binary file object, as upstream does.

        ``verification`` is a ``Verification`` member (default ``InternalConsistency``, as
        upstream); anything else raises ``TypeError``. ``data_path`` names a ``.ptd`` file.
        ``enable_etdump`` makes every method record an ETDump (with a ``debug_buffer_size``
        byte debug buffer when > 0); ``write_etdump_result_to_file`` writes it.
        """
        if debug_buffer_size and not enable_etdump:
            raise ValueError("debug_buffer_size needs enable_etdump=True")
        if isinstance(data, (str, os.PathLike)):
            source = os.fspath(data)
            keep = None
        elif isinstance(data, (bytes, bytearray)):
            source = keep = bytes(data)
        elif callable(getattr(data, "read", None)):
            source = keep = data.read()
        else:
            raise TypeError(
                "Expected data to be bytes, bytearray, a path to a .pte file, or a file-like "
                f"object, but got {type(data).__name__}."
            )
        program = self._legacy_module.load(
            source, verification=verification, data_path=data_path
        )
        return RuntimeProgram(
            program, keep, enable_etdump=enable_etdump, debug_buffer_size=debug_buffer_size
        )
