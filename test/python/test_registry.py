"""The one registry: a plugin loaded from Python is visible from Python and from C++ code in the
same process; the extension defines none of the registry itself."""

import ctypes
import os

import pytest

from conftest import assert_isolated_ok


def test_lists(et):
    ops = et.operators()
    assert "executorch_prim::et_view.default" in ops
    assert len(ops) == len(set(ops))
    assert isinstance(et.backends(), list)
    assert et.is_available("NoSuchBackend") is False


def test_load_library_errors(et, tmp_path):
    with pytest.raises(OSError, match="load_library"):
        et.load_library(str(tmp_path / "missing.so"))
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not an elf")
    with pytest.raises(OSError):
        et.load_library(junk)
    with pytest.raises(TypeError):
        et.load_library(42)


def test_plugin_visible_from_python_and_cpp(plugin_path):
    # A fresh process: the plugin's registrations are process-wide and permanent.
    assert_isolated_ok(f"""
        import ctypes, os
        import executorch_runtime as et
        lib_dir = et.get_library_dir()
        before_b, before_k = et.backends(), et.operators()
        assert "PyTestPluginBackend" not in before_b
        et.load_library({plugin_path!r})
        assert "PyTestPluginBackend" in et.backends()
        assert et.is_available("PyTestPluginBackend")
        assert "pytest_plugin::noop.out" in et.operators()

        # C++ code in the plugin sees the same registry Python sees.
        plug = ctypes.CDLL({plugin_path!r})
        assert plug.pytest_plugin_status() == 0, plug.pytest_plugin_status()
        plug.pytest_plugin_cpp_num_backends.restype = ctypes.c_size_t
        plug.pytest_plugin_cpp_backend_name.restype = ctypes.c_char_p
        plug.pytest_plugin_cpp_backend_name.argtypes = [ctypes.c_size_t]
        plug.pytest_plugin_cpp_num_kernels.restype = ctypes.c_size_t
        plug.pytest_plugin_cpp_has_op.argtypes = [ctypes.c_char_p]
        n = plug.pytest_plugin_cpp_num_backends()
        names = [plug.pytest_plugin_cpp_backend_name(i).decode() for i in range(n)]
        assert names == et.backends(), (names, et.backends())
        # The backend library _C links registered into that same registry, before the plugin.
        assert names.index("XnnpackBackend") < names.index("PyTestPluginBackend"), names
        assert plug.pytest_plugin_cpp_has_op(b"pytest_plugin::noop.out") == 1
        assert plug.pytest_plugin_cpp_has_op(b"executorch_prim::et_view.default") == 1
        # Every kernel the kernel library (linked by _C) registered is there for C++ too.
        assert plug.pytest_plugin_cpp_num_kernels() >= len(et.operators())

        # And the runtime library itself, called directly, agrees.
        rt = ctypes.CDLL(os.path.join(lib_dir, "libexecutorch.so.1"))
        f = rt._ZN10executorch7runtime27get_num_registered_backendsEv
        f.restype = ctypes.c_size_t
        assert f() == len(et.backends())
        # Same file, not a second copy: the handle resolves to the already loaded library.
        maps = open("/proc/self/maps").read()
        real = {{l.split()[-1] for l in maps.splitlines() if "libexecutorch.so" in l}}
        assert len(real) == 1, real
        # Each library loaded once: the backend and the kernels it links are single files too.
        for name in ("libexecutorch_kernels.so", "libexecutorch_backend_xnnpack.so"):
            files = {{l.split()[-1] for l in maps.splitlines() if name in l}}
            assert len(files) == 1, (name, files)
        print("ok")
    """)


def test_plugin_duplicate_backend_name_is_harmless(plugin_path, tmp_path):
    # Loading the same plugin twice is a no-op for dlopen; nothing is registered twice.
    assert_isolated_ok(f"""
        import executorch_runtime as et
        et.load_library({plugin_path!r}); n = len(et.backends())
        et.load_library({plugin_path!r}); assert len(et.backends()) == n
    """)
