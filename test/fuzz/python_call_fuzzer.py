"""Driver of the Python call fuzzer (python_call_fuzzer.cpp embeds CPython and calls
fuzz_one() with each input).

The bytes choose a method of a few zoo programs and build its call arguments: numpy arrays of
any dtype (including ones the runtime lacks, big-endian, structured and object arrays), shapes
near and far from the method's declared ones, strided/transposed/broadcast/misaligned/
read-only layouts, Python scalars at the edges of int64 and float, None, strings, nested and
ragged lists, __dlpack__ producers and objects whose protocol methods misbehave. The call
must either succeed or raise TypeError, ValueError or executorch_runtime.Error; any other
exception is a finding (the C++ side aborts so libFuzzer records the input), and so is any
sanitizer report from the conversion code.
"""

import os

import numpy as np

import executorch_runtime as et

PROGRAMS = [
    "dtype_io.pte", "prim_inputs.pte", "dynamic_shape.pte", "multi_method.pte", "add_f16.pte",
    "unplanned_io.pte", "unplanned_io_dynamic.pte", "identity.pte", "mlp.pte", "stateful.pte",
    "cond.pte", "constant_methods.pte",
]

DTYPES = [
    np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8,
    np.uint16, np.uint32, np.uint64, np.bool_, np.complex64, np.complex128, np.object_,
    np.dtype("datetime64[ns]"), np.dtype("U3"), np.dtype("S2"), np.dtype([("a", "<f4")]),
    np.dtype(">f4"), np.dtype(">i8"), np.dtype("V4"), np.longdouble,
]

INTS = [0, 1, -1, 2**31, 2**32 + 1, 2**62 + 1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64,
        10**30]
FLOATS = [0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf"), 1e308, 5e-324]


class Refused(BufferError):
    """Raised by a DLPackProducer that refuses to export; the call passes it through."""


EXPECTED = (TypeError, ValueError, et.Error, Refused)

methods = []

# ET_FUZZ_TRACE=1 prints each call (method and arguments) to triage an input.
TRACE = os.environ.get("ET_FUZZ_TRACE", "0") != "0"
# ET_FUZZ_ALIGNED_ONLY=1 builds no misaligned arrays, to look past a known misalignment bug.
ALIGNED_ONLY = os.environ.get("ET_FUZZ_ALIGNED_ONLY", "0") != "0"


def describe(a):
    if isinstance(a, np.ndarray):
        return "ndarray(dtype=%s, shape=%s, strides=%s, aligned=%s, c_contiguous=%s)" % (
            a.dtype, a.shape, a.strides, a.flags.aligned, a.flags.c_contiguous)
    return repr(a)[:80]


def setup(zoo_dir):
    for name in PROGRAMS:
        path = os.path.join(zoo_dir, name)
        if not os.path.exists(path):
            continue
        program = et.load(path)
        for m in program.method_names:
            try:
                methods.append(program.load_method(m))
            except EXPECTED:
                pass  # e.g. a method needing a backend: nothing to call


class Reader:
    """Takes values from the fuzz input; zeros once it is used up."""

    def __init__(self, data):
        self.data = data
        self.pos = 0

    def byte(self):
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def pick(self, seq):
        return seq[self.byte() % len(seq)]

    def take(self, n):
        chunk = self.data[self.pos:self.pos + n]
        self.pos += len(chunk)
        return chunk


def shape_for(r, info):
    base = list(info.shape) if info is not None and info.kind == "Tensor" else []
    how = r.byte() % 8
    if how < 4:
        return base                                   # the declared shape
    if how == 4:
        return [max(0, d - r.byte() % 3) for d in base]  # smaller (dynamic shapes)
    if how == 5:
        return [d + r.byte() % 3 for d in base]          # larger than the bound
    if how == 6:
        return base[:-1] if base and r.byte() % 2 else base + [1]  # another rank
    return [r.byte() % 4 for _ in range(r.byte() % 18)]  # anything, up to rank 17


def values(r, dtype, shape):
    n = int(np.prod(shape)) if shape else 1
    raw = r.take(16) or b"\x01"
    fill = np.frombuffer((raw * (n * 16 // len(raw) + 1))[: n * 16], dtype=np.uint8)
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return (fill[:n].astype(np.float64) - 128.0).reshape(shape).astype(dtype)
    if dtype.kind in "iub":
        return fill[:n].reshape(shape).astype(dtype)
    return np.zeros(shape, dtype=dtype)


def array(r, info):
    dtype = np.dtype(info.dtype) if (r.byte() % 4 and info is not None and
                                     info.kind == "Tensor" and info.dtype in np.sctypeDict) \
        else np.dtype(r.pick(DTYPES))
    shape = shape_for(r, info)
    if int(np.prod(shape)) > 1 << 16:
        shape = [1] * len(shape)
    a = values(r, dtype, shape)
    layout = r.byte() % 8
    if layout == 1 and a.ndim >= 2:
        a = np.ascontiguousarray(a.swapaxes(0, 1)).swapaxes(0, 1)  # strided, same shape
    elif layout == 2 and a.ndim >= 1:
        a = np.concatenate([a, a], axis=0)[::2] if a.shape[0] else a  # step-2 slice
    elif layout == 3 and a.ndim >= 1:
        a = a[::-1]                                                   # negative stride
    elif layout == 4 and a.size:
        a = np.broadcast_to(a.reshape(-1)[:1].reshape((1,) * a.ndim), a.shape)  # stride 0
    elif layout == 5 and not ALIGNED_ONLY and a.dtype.itemsize > 1 and a.dtype.kind in "iufcb":
        buf = bytearray(a.nbytes + 1)
        m = np.frombuffer(buf, dtype=a.dtype, count=a.size, offset=1)  # misaligned
        m[...] = a.reshape(-1)
        a = m.reshape(a.shape)
    elif layout == 6:
        a = np.asfortranarray(a)
    elif layout == 7:
        a = a.copy()
        a.flags.writeable = False
    return a


class DLPackProducer:
    """An object with the DLPack protocol, honest or not."""

    def __init__(self, arr, mode):
        self.arr, self.mode = arr, mode

    def __dlpack__(self, **kwargs):
        if self.mode == 1:
            raise Refused("refused")
        if self.mode == 2:
            return "not a capsule"
        try:
            if self.mode == 3:
                return self.arr.__dlpack__()  # ignores the requested version
            return self.arr.__dlpack__(**kwargs)
        except BufferError as e:  # numpy cannot export this array (e.g. longdouble)
            raise Refused(str(e)) from e

    def __dlpack_device__(self):
        return (99, 0) if self.mode == 4 else (1, 0)


def argument(r, info):
    kind = r.byte() % 14
    if kind < 6:
        return array(r, info)
    if kind == 6:
        return r.pick(INTS)
    if kind == 7:
        return r.pick(FLOATS)
    if kind == 8:
        return bool(r.byte() & 1)
    if kind == 9:
        return r.pick([None, "str", b"bytes", {}, object(), 1j, np.int64(3), np.float32(2),
                       np.bool_(True), np.array(5)])
    if kind == 10:
        a = array(r, info)
        return a.tolist() if a.dtype.kind in "iufb" else [1, 2]
    if kind == 11:
        return [[1, 2], [3]] if r.byte() % 2 else [[[0.5]], [1.5]]  # ragged
    if kind == 12:
        a = array(r, info)
        return DLPackProducer(a, r.byte() % 5) if a.dtype.kind in "iufb" else a
    return (array(r, info),)  # a tuple where an array belongs


def fuzz_one(data):
    if not methods:
        return
    r = Reader(data)
    method = r.pick(methods)
    inputs = list(method.meta.inputs)
    count = len(inputs)
    how = r.byte() % 8
    if how == 6:
        count = max(0, count - 1)
    elif how == 7:
        count += 1
    try:
        args = [argument(r, inputs[i] if i < len(inputs) else None) for i in range(count)]
    except (TypeError, ValueError, OverflowError, BufferError):
        return  # numpy refused to build this argument: nothing to send
    if TRACE:
        print("python_call:", method.name, [describe(a) for a in args], flush=True)
    try:
        outputs = method(*args) if r.byte() % 2 else method.execute(args)
    except EXPECTED:
        return
    for out in outputs:
        if isinstance(out, np.ndarray):
            out.tobytes()  # every byte of every output is readable
