"""The public API: loading, metadata, calls, outputs, errors, locators, the facade, the CLI."""

import io
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from conftest import zoo_path

IDENTITY = zoo_path("identity.pte")
CONST = zoo_path("constant_methods.pte")


def _ident_inputs():
    return np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(4, dtype=np.float32)


@pytest.mark.parametrize("kind", ["str", "pathlike", "bytes", "bytearray", "memoryview", "file"])
def test_load_sources(et, kind):
    data = pathlib.Path(IDENTITY).read_bytes()
    src = {
        "str": IDENTITY,
        "pathlike": pathlib.Path(IDENTITY),
        "bytes": data,
        "bytearray": bytearray(data),
        "memoryview": memoryview(data),
        "file": io.BytesIO(data),
    }[kind]
    p = et.load(src)
    assert p.method_names == ("forward",)
    out = p.load_method("forward")(*_ident_inputs())
    assert np.array_equal(out[1], np.arange(4, dtype=np.float32))


def test_load_copies_mutable_buffers(et):
    buf = bytearray(pathlib.Path(IDENTITY).read_bytes())
    p = et.load(buf)
    buf[:] = b"\0" * len(buf)
    del buf
    out = p.load_method("forward")(*_ident_inputs())
    assert np.array_equal(out[0], _ident_inputs()[0])


@pytest.mark.parametrize("level", ["Minimal", "InternalConsistency"])
def test_verification_levels(et, level):
    assert et.load(CONST, verification=et.Verification[level]).method_names


@pytest.mark.parametrize("level", ["minimal", "internal_consistency", "full", "Minimal", 0, 1,
                                   True, 3.5, None])
def test_verification_takes_only_the_enum(et, level):
    """Strings and ints are refused, not mapped: one spelling of a level everywhere."""
    with pytest.raises(TypeError, match=r"verification must be executorch_runtime\.Verification"):
        et.load(CONST, verification=level)
    with pytest.raises(TypeError, match="Verification"):
        et.load(pathlib.Path(CONST).read_bytes(), verification=level)
    from executorch_runtime.runtime import Runtime

    with pytest.raises(TypeError, match="Verification"):
        Runtime.get().load_program(CONST, verification=level)


def test_method_meta(et):
    p = et.load(zoo_path("prim_inputs.pte"))
    meta = p.method_meta("forward")
    kinds = [i.kind for i in meta.inputs]
    assert kinds == ["Tensor", "Tensor", "Int", "Double", "Bool"]
    t = meta.inputs[0]
    assert isinstance(t.dtype, np.dtype)
    assert (t.dtype, t.scalar_type, t.shape, t.dim_order, t.nbytes) == (
        np.dtype(np.float32), 6, (2, 3), (0, 1), 24)
    assert meta.inputs[2].dtype is None and meta.inputs[2].scalar_type is None
    assert "dtype=float32," in repr(t)
    assert meta.outputs[0].shape == (2, 3)
    assert all(isinstance(s, int) and s >= 0 for s in meta.planned_buffer_sizes)
    assert meta.name == "forward"
    assert "MethodMeta(name='forward'" in repr(meta)
    assert p.load_method("forward").meta.inputs[1].shape == (2, 3)


def test_unknown_method(et):
    p = et.load(CONST)
    with pytest.raises(KeyError, match="nope"):
        p.load_method("nope")
    with pytest.raises(KeyError):
        p.method_meta("nope")
    with pytest.raises(TypeError):
        p.load_method(5)


def test_outputs_survive_next_call(et):
    m = et.load(IDENTITY).load_method("forward")
    a, b = _ident_inputs()
    first = m(a, b)
    second = m(a + 100, b + 100)
    assert np.array_equal(first[0], a) and np.array_equal(second[0], a + 100)
    assert first[0].flags.owndata or first[0].base is not None
    first[0][...] = -1  # writable, and not the method's memory
    assert np.array_equal(m(a, b)[0], a)


def test_execute_sequence_and_call(et):
    m = et.load(IDENTITY).load_method("forward")
    a, b = _ident_inputs()
    for out in (m.execute([a, b]), m.execute((a, b)), m(a, b)):
        assert np.array_equal(out[0], a)


def test_method_outlives_program(et):
    m = et.load(pathlib.Path(IDENTITY).read_bytes()).load_method("forward")
    import gc

    gc.collect()
    assert np.array_equal(m(*_ident_inputs())[1], _ident_inputs()[1])


def test_runtime_error_has_code(et):
    with pytest.raises(et.Error) as info:
        et.load(b"definitely not a program" * 8)
    e = info.value
    assert isinstance(e, RuntimeError)
    assert isinstance(e.code, et.ErrorCode)
    assert e.code.name in str(e) or "Error::" in str(e)
    assert int(e.code) > 0


def test_missing_operator_is_named(et):
    import ctypes  # noqa: F401  (only to show no torch import is needed)

    ops = set(et.operators())
    # cond needs aten::cos/sin; any program needing an unregistered op names it.
    for prog in ("cond.pte", "mlp.pte", "vit_tiny.pte", "hf_llama_tiny.pte"):
        p = et.load(zoo_path(prog))
        try:
            p.load_method("forward")
        except et.Error as e:
            assert e.code == et.ErrorCode.OperatorMissing
            assert "::" in str(e)  # the operator's name is in the message
            return
    pytest.skip("every probed program's operators are registered")


def test_locators(et):
    assert os.path.isdir(et.get_library_dir())
    assert os.path.exists(os.path.join(et.get_library_dir(), "libexecutorch.so.1"))
    assert os.path.exists(os.path.join(et.get_include(), "executorch", "runtime", "core", "evalue.h"))
    assert et.cmake_prefix_path().endswith(os.path.join("share", "cmake"))
    for flag, expect in [("--includedir", et.get_include()), ("--libdir", et.get_library_dir())]:
        out = subprocess.run([sys.executable, "-m", "executorch_runtime", flag],
                             capture_output=True, text=True, check=True).stdout.strip()
        assert out == expect
    libs = subprocess.run([sys.executable, "-m", "executorch_runtime", "--libs"],
                          capture_output=True, text=True, check=True).stdout
    assert "-lexecutorch" in libs and "--no-as-needed" in libs
    cflags = subprocess.run([sys.executable, "-m", "executorch_runtime", "--cflags"],
                            capture_output=True, text=True, check=True).stdout
    assert f"-I{et.get_include()}" in cflags


def test_sdk_compiles_a_consumer(et, tmp_path):
    """--cflags/--libs are enough to build and run a C++ program against the package."""
    src = tmp_path / "app.cpp"
    src.write_text(
        "#include <executorch/runtime/backend/interface.h>\n"
        "#include <executorch/runtime/kernel/operator_registry.h>\n"
        "#include <cstdio>\n"
        "int main() { std::printf(\"%zu\\n\", executorch::runtime::get_registered_kernels().size());"
        " return 0; }\n")
    def flags(f):
        return subprocess.run([sys.executable, "-m", "executorch_runtime", f], capture_output=True,
                              text=True, check=True).stdout.split()
    exe = tmp_path / "app"
    subprocess.run(["g++", *flags("--cflags"), str(src), "-o", str(exe), *flags("--libs")],
                   check=True)
    n = int(subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout)
    assert n >= len(et.operators())


def test_cli_run(et):
    r = subprocess.run([sys.executable, "-m", "executorch_runtime", "run", zoo_path("prim_inputs.pte"),
                        "--iterations", "3"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "methods: forward" in r.stdout
    assert "output 0: float32 (2, 3)" in r.stdout
    assert "execute: median" in r.stdout


def test_cli_run_inputs_and_errors(et, tmp_path):
    a, b = _ident_inputs()
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    r = subprocess.run([sys.executable, "-m", "executorch_runtime", "run", IDENTITY, "--input",
                        str(tmp_path / "a.npy"), "--input", str(tmp_path / "b.npy"),
                        "--verification", "InternalConsistency"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "output 1: float32 (4,) [0, 1, 2, 3]" in r.stdout
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"\0" * 100)
    r = subprocess.run([sys.executable, "-m", "executorch_runtime", "run", str(bad)],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "error:" in r.stderr


def test_facade(et):
    from executorch_runtime.runtime import (Runtime, RuntimeMethod, RuntimeMethodMeta,
                                            RuntimeProgram, RuntimeTensorInfo, Verification)

    rt = Runtime.get()
    assert rt is Runtime.get()
    prog = rt.load_program(IDENTITY, verification=Verification.Minimal)
    assert isinstance(prog, RuntimeProgram)
    assert prog.method_names == {"forward"}
    method = prog.load_method("forward")
    assert isinstance(method, RuntimeMethod)
    assert method is prog.load_method("forward")
    outs = method.execute(list(_ident_inputs()))
    assert np.array_equal(outs[0], _ident_inputs()[0])
    meta = method.metadata
    assert isinstance(meta, RuntimeMethodMeta)
    assert isinstance(meta.input_tensor_meta(0), RuntimeTensorInfo)
    assert meta.num_inputs() == 2 and meta.input_tensor_meta(0).sizes() == (2, 3)
    assert meta.input_tensor_meta(0).dtype() == 6  # ScalarType::Float
    assert "TensorInfo(sizes=[2, 3], dtype=Float" in repr(meta.input_tensor_meta(0))
    assert prog.metadata("forward").num_outputs() == 2
    with open(IDENTITY, "rb") as f:
        assert rt.load_program(f).method_names == {"forward"}
    assert rt.load_program(pathlib.Path(IDENTITY).read_bytes()).method_names == {"forward"}
    with pytest.raises(TypeError):
        rt.load_program(12)
    assert isinstance(rt.backend_registry.registered_backend_names, list)
    assert rt.backend_registry.is_available("NoSuchBackend") is False
    assert "executorch_prim::et_view.default" in rt.operator_registry.operator_names


def test_missing_backend_is_named(et):
    # XnnpackBackend is registered by default; the same program naming a backend nobody
    # registered (one byte changed in the delegate id) must fail to load, naming it.
    data = pathlib.Path(zoo_path("mlp_xnnpack.pte")).read_bytes()
    assert data.count(b"XnnpackBackend") == 1
    p = et.load(data.replace(b"XnnpackBackend", b"XnnpackBackenQ"))
    assert "XnnpackBackenQ" in p.method_meta("forward").backends
    with pytest.raises(et.Error) as e:
        p.load_method("forward")
    assert "XnnpackBackenQ" in str(e.value)


def test_xnnpack_backend_is_registered_by_default(et):
    assert "XnnpackBackend" in et.backends()
    m = et.load(zoo_path("mlp_xnnpack.pte")).load_method("forward")
    x = np.load(zoo_path("data/mlp_xnnpack/forward.call0.in0.npy"))
    want = np.load(zoo_path("data/mlp_xnnpack/forward.call0.out0.npy"))
    (got,) = m(x)
    assert np.allclose(got, want, atol=1e-5, rtol=1e-5)


def test_profile_counts_every_operator_call(et):
    import json
    manifest = json.load(open(zoo_path("manifest.json")))
    mlp = next(p for p in manifest["programs"] if p["name"] == "mlp")
    kinds = mlp["methods"][0]["instruction_kinds"]
    # prepare=False: every instruction runs at every call (with preparation the weight
    # permutes run once at load and are not profiled).
    m = et.load(zoo_path("mlp.pte")).load_method("forward", profile=True, prepare=False)
    x = np.ones((4, 16), dtype=np.float32)
    m(x)
    m(x)
    rows = m.profile_results()
    names = {r[0] for r in rows}
    assert names == set(mlp["operators"])
    prepared = et.load(zoo_path("mlp.pte")).load_method("forward", profile=True)
    prepared(x)
    assert "aten::permute_copy.out" not in {r[0] for r in prepared.profile_results()}
    np.testing.assert_array_equal(prepared(x)[0], m(x)[0])
    assert sum(r[1] for r in rows) == 2 * kinds["KernelCall"]
    assert all(r[2] > 0 for r in rows)
    m.reset_profile()
    assert m.profile_results() == []
    with pytest.raises(ValueError, match="profile=True"):
        et.load(zoo_path("mlp.pte")).load_method("forward").profile_results()


def test_prepared_bytes_reports_the_load_time_memory(et):
    # conv_bn_act's batch norms fold into new convolution weights and its head's weight is
    # packed: preparation allocates, and reports it; prepare=False allocates nothing.
    on = et.load(zoo_path("conv_bn_act.pte")).load_method("forward")
    off = et.load(zoo_path("conv_bn_act.pte")).load_method("forward", prepare=False)
    assert on.prepared_bytes > 0
    assert off.prepared_bytes == 0
    x = np.load(zoo_path("data/conv_bn_act/forward.call0.in0.npy"))
    want = np.load(zoo_path("data/conv_bn_act/forward.call0.out0.npy"))
    assert np.allclose(on(x)[0], want, atol=1e-4, rtol=1e-4)
    assert np.allclose(off(x)[0], want, atol=1e-4, rtol=1e-4)


def test_cli_run_profile_prints_table(et):
    r = subprocess.run([sys.executable, "-m", "executorch_runtime", "run", zoo_path("mlp.pte"),
                        "--profile", "--iterations", "3"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "profile (per operator" in r.stdout
    assert "aten::addmm.out" in r.stdout
