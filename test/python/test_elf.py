"""Link-level properties of the extension: it NEEDs the two shared libraries, carries a
$ORIGIN-relative RUNPATH, exports only PyInit__C and defines none of the registry."""

import re
import shutil
import subprocess

import pytest


def _run(*cmd):
    if shutil.which(cmd[0]) is None:
        pytest.skip(f"{cmd[0]} not installed")
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def test_needed_and_runpath(ext_path):
    out = _run("readelf", "-d", "-W", ext_path)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)
    assert "libexecutorch.so.1" in needed
    assert "libexecutorch_kernels.so.1" in needed
    assert "(RPATH)" not in out
    runpath = re.findall(r"\(RUNPATH\)\s+Library runpath: \[(.+?)\]", out)
    assert runpath == ["$ORIGIN/lib"]


def test_exports_only_pyinit(ext_path):
    out = _run("nm", "-D", "--defined-only", ext_path)
    syms = [l.split()[-1] for l in out.splitlines() if l.strip()]
    assert syms == ["PyInit__C"], syms


def test_defines_no_registry(ext_path):
    # Not even hidden: the static symbol table must hold no registry code either.
    out = _run("nm", "-C", "--defined-only", ext_path)
    bad = [l for l in out.splitlines()
           if re.search(r"register_kernels|register_backend|get_registered_kernels|"
                        r"get_num_registered_backends|get_backend_class|"
                        r"get_op_function_from_registry|Program::load|Method::execute", l)]
    assert not bad, bad[:10]
    undef = _run("nm", "-D", "-C", "--undefined-only", ext_path)
    assert "executorch::runtime::get_registered_kernels()" in undef
    assert "executorch::runtime::get_num_registered_backends()" in undef


def test_library_links_are_one_file(et):
    import os

    lib = et.get_library_dir()
    for name in ("libexecutorch.so.1", "libexecutorch_kernels.so.1"):
        p = os.path.join(lib, name)
        assert os.path.exists(p)
