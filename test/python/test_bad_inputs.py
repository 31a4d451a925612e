"""Bad inputs of every kind raise the right exception, never crash the interpreter.

The crash-prone cases (memory the runtime would read out of bounds if a check were missing)
run in a subprocess with faulthandler on, so a segfault fails the test instead of pytest."""

import pathlib

import numpy as np
import pytest

from conftest import assert_isolated_ok, zoo_path

IDENTITY = zoo_path("identity.pte")
PRIM = zoo_path("prim_inputs.pte")
DYN = zoo_path("unplanned_io_dynamic.pte")


@pytest.fixture(scope="module")
def ident(et):
    return et.load(IDENTITY).load_method("forward")


@pytest.fixture(scope="module")
def prim(et):
    return et.load(PRIM).load_method("forward")


A = np.ones((2, 3), np.float32)
B = np.ones((4,), np.float32)


@pytest.mark.parametrize("src,exc", [
    (None, TypeError), (123, TypeError), ([], TypeError), ({}, TypeError),
    ("/nonexistent/x.pte", FileNotFoundError), ("/", IsADirectoryError),
])
def test_load_bad_sources(et, src, exc):
    with pytest.raises(exc):
        et.load(src)


def test_load_unreadable(et, tmp_path):
    import os

    if os.geteuid() == 0:
        pytest.skip("root reads any file")
    f = tmp_path / "x.pte"
    f.write_bytes(pathlib.Path(IDENTITY).read_bytes())
    f.chmod(0)
    with pytest.raises(PermissionError):
        et.load(str(f))


@pytest.mark.parametrize("data", [b"", b"\0" * 7, b"\xff" * 4096], ids=["empty", "short", "random"])
def test_load_garbage_bytes(et, data):
    with pytest.raises(et.Error) as e:
        et.load(data)
    assert e.value.code in (et.ErrorCode.InvalidProgram, et.ErrorCode.InvalidArgument,
                            et.ErrorCode.NotSupported)


def test_truncated_programs_in_subprocess(tmp_path):
    data = pathlib.Path(zoo_path("mlp.pte")).read_bytes()
    p = tmp_path / "trunc.pte"
    p.write_bytes(data[: len(data) // 2])
    assert_isolated_ok(f"""
        import executorch_runtime as et
        data = open({str(zoo_path("mlp.pte"))!r}, "rb").read()
        for n in (8, 32, 64, 100, 500, len(data) // 3, len(data) // 2, len(data) - 1):
            for level in et.Verification:
                try:
                    p = et.load(data[:n], verification=level)
                    for name in p.method_names:
                        p.load_method(name)
                except et.Error:
                    pass
        try:
            et.load({str(p)!r})
        except et.Error as e:
            assert e.code.name in ("InvalidProgram", "InvalidArgument", "AccessFailed"), e
    """)


def test_input_count(ident):
    with pytest.raises(ValueError, match="takes 2 inputs, got 1"):
        ident(A)
    with pytest.raises(ValueError, match="got 3"):
        ident(A, B, B)


@pytest.mark.parametrize("inputs", [{"a": A}, "ab", b"ab", 5, None])
def test_inputs_not_a_sequence(ident, inputs):
    with pytest.raises(TypeError):
        ident.execute(inputs)


@pytest.mark.parametrize("bad,expected", [
    (np.ones((2, 3), np.float64), "expected dtype float32, got float64"),
    (np.ones((2, 3), np.int32), "expected dtype float32, got int32"),
    (np.ones((2, 3), bool), "expected dtype float32, got bool"),
    (np.array([["a"] * 3] * 2), "expected dtype float32"),
    (np.array([[object()] * 3] * 2), "expected dtype float32"),
    (np.ones((2, 3), ">f4"), "byte order"),
    ("text", "got str"),
    (None, "got NoneType"),
    (1.5, "expected a tensor"),
])
def test_wrong_dtype_or_kind(ident, bad, expected):
    with pytest.raises(TypeError, match=expected):
        ident(bad, B)


@pytest.mark.parametrize("bad,expected", [
    (np.ones((6,), np.float32), r"expected rank 2 \(shape \(2, 3\)\), got rank 1"),
    (np.ones((2, 3, 1), np.float32), "expected rank 2"),
    (np.ones((1,) * 17, np.float32), "rank"),
    (np.ones((3, 3), np.float32), r"exceeds the bound \(2, 3\)"),
    (np.ones((3, 2), np.float32), r"expected shape \(2, 3\).*got shape \(3, 2\)"),
    (np.ones((0, 3), np.float32), r"got shape \(0, 3\)"),
    (np.float32(1.0), "rank"),
])
def test_wrong_shape(ident, bad, expected):
    with pytest.raises(ValueError, match=expected):
        ident(bad, B)


def test_layouts_are_copied(ident):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    for a in (base[::2, ::2], np.asfortranarray(base[:2, :3]), base[:2, :3][::-1, ::-1]):
        assert a.shape == (2, 3)
        out = ident(a, B)
        assert np.array_equal(out[0], a)
    # a list is an array-like of the right dtype only if numpy says so
    with pytest.raises(TypeError, match="float64"):
        ident([[1.0, 2.0, 3.0]] * 2, B)
    out = ident(np.array([[1, 2, 3]] * 2, np.float32).tolist() and np.ones((2, 3), np.float32), B)
    assert out[0].shape == (2, 3)


def test_array_like_that_raises(ident):
    class Bad:
        def __array__(self, *a, **k):
            raise ZeroDivisionError("boom")

    with pytest.raises(ZeroDivisionError, match="boom"):
        ident(Bad(), B)


def test_prim_inputs(prim):
    good = [A, A, 3, 0.5, True]
    assert prim(*good)[0].shape == (2, 3)
    with pytest.raises(TypeError, match="input 2: expected an int, got float"):
        prim(A, A, 3.0, 0.5, True)
    with pytest.raises(TypeError, match="input 2: expected an int, got bool"):
        prim(A, A, True, 0.5, True)
    with pytest.raises(TypeError, match="input 4: expected a bool, got int"):
        prim(A, A, 3, 0.5, 1)
    with pytest.raises(TypeError, match="input 3: expected a float, got str"):
        prim(A, A, 3, "0.5", True)
    with pytest.raises(ValueError, match="input 2: this input was fixed at export to 3, got 4"):
        prim(A, A, 4, 0.5, True)
    with pytest.raises(ValueError, match="out of the int64 range"):
        prim(A, A, 2**70, 0.5, True)
    assert prim(A, A, np.int64(3), np.float32(0.5), np.bool_(True))[0].shape == (2, 3)
    # the method stays usable after every failure
    assert np.array_equal(prim(*good)[0], prim(*good)[0])


def test_dynamic_bound(et):
    p = et.load(DYN)
    meta = p.method_meta("forward")
    bound = meta.inputs[0].shape
    if "aten::cat.out" not in et.operators():
        pytest.skip("kernel library lacks aten::cat.out")
    m = p.load_method("forward")
    too_big = tuple(d + 1 for d in bound)
    with pytest.raises(ValueError, match="exceeds the bound"):
        m(np.ones(too_big, np.float32))


def test_crash_prone_inputs_in_subprocess():
    """Huge, empty and mismatched buffers: every case must end in a Python exception."""
    assert_isolated_ok(f"""
        import numpy as np, executorch_runtime as et
        m = et.load({IDENTITY!r}).load_method("forward")
        B = np.ones(4, np.float32)
        cases = [
            np.ones((2, 3000), np.float32), np.ones((2, 3), np.float32)[:, :0],
            np.empty((0,), np.float32), np.lib.stride_tricks.as_strided(
                np.ones(1, np.float32), shape=(2, 3), strides=(0, 0)),
            np.ones((2**16, 2**15), np.bool_)[:2, :3].astype(np.float32)[:, ::-1],
            np.ones((2, 3), np.float32).view(np.int32),
            np.ones((1, 2, 3), np.float32)[0].T,
        ]
        for a in cases:
            try:
                m(a, B)
            except (TypeError, ValueError):
                pass
        class Weird:
            def __dlpack__(self, **kw): return 5
            def __dlpack_device__(self): return (1, 0)
        for x in (Weird(), object(), [[1, 2, 3]], [object()]):
            try:
                m(x, B)
            except (TypeError, ValueError):
                pass
        print("ok")
    """)
