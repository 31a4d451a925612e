#!/usr/bin/env python3
"""wheelcheck.py CHECK: one check of `make check-wheel` (mk/wheel.mk), then its fault injection.

Every check first runs against the real wheel and must pass; then the same check function runs
against an input broken on purpose (a rewritten wheel, a mutated copy of the installed package, a
patched binary) and must FAIL, for the stated reason. Each line printed is one test ("ok ..." or
"FAIL ..."); the last line is "N passed, N failed" (read by test/tools/run-check.sh).

    setup-venv   (not a check) a fresh venv with the wheel pip-installed, shared by the checks
    layout       item 1: contents, one real file per library, linker scripts, metadata, tag
    install      1  fresh venv + pip install + import + zoo model vs goldens + et-run
    one-registry 2  exactly one shared object defines the registry; _C imports it
    cmake-consumer 3  find_package + executorch::runtime, no source tree, loader-clean run
    components   4  runtime alone: missing operator named; + kernels: goldens; bad components
    readelf      5  NEEDED libexecutorch.so.1, DT_RUNPATH with $ORIGIN entries, shipped RUNPATHs
    relocate     6  moved consumer + libraries runs; LD_LIBRARY_PATH names the one loaded
    embed        7  C++ embedding Python sees exactly the kernels/backends Python reports
    plugins      8  consumer-built kernel and backend plugins, loaded from Python, used by programs
    pkgconfig    9  pkg-config and plain -I/-L/-lexecutorch builds against the wheel run
    headers     10  every shipped header compiles alone, C++17 and C++20, -Wall -Wextra -Werror
    cmake-matrix 11 CMake 3.24/3.27/3.28/3.31/4.x x Makefiles/Ninja: configure, build, run, relocate
    version     12  version requests accepted/rejected, 32-bit consumer rejected, components
    static      13  make SHARED=0 wheel: self-contained _C, no .so shipped, Python tests pass
    record      14  every RECORD hash verifies
    target      a cross wheel (ET_ARCH): every ELF is for the target machine, $ORIGIN RUNPATHs,
                SONAMEs, the EXECUTORCH_1.0 version node defined and required; import and a
                forward call against the goldens in the target's Python under qemu-user
                (ET_TARGET_PYTHON, a command line; ET_TARGET_PYTHONPATH, its numpy)

Environment (set by mk/wheel.mk): ET_WHEEL_PATH_FILE ET_WHL_WORK ET_WHL_VENV ET_WHL_CACHE ET_SRC
ET_CXX ET_PYTHON ET_VERSION, and for `static` ET_MAKE ET_O.
"""

import base64
import concurrent.futures
import csv
import hashlib
import io
import json
import os
import platform
import re
import shlex
import shutil
import stat
import subprocess
import sys
import time
import zipfile

import numpy as np

E = os.environ
SRC = E.get("ET_SRC", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
HERE = os.path.join(SRC, "test", "wheel")
ZOO = os.path.join(SRC, "test", "fixtures", "zoo")
VERSION = E.get("ET_VERSION", "1.0.0")
# A compiler command may carry a launcher ("ccache g++"): split it like a shell would.
CXX = shlex.split(E.get("ET_CXX", "g++")) or ["g++"]
PYTHON = E.get("ET_PYTHON", "python3")
WORK_ROOT = E.get("ET_WHL_WORK", "")
VENV = E.get("ET_WHL_VENV", "")
CACHE = E.get("ET_WHL_CACHE", "")
JOBS = max(1, os.cpu_count() or 1)

# The CMake matrix of item 2 (pip-installable releases; 4.4.5 is the current 4.x).
CMAKE_VERSIONS = ["3.24.3", "3.27.9", "3.28.4", "3.31.10", "4.4.5"]
GENERATORS = ["Unix Makefiles", "Ninja"]
NINJA_PIN = "ninja==1.13.2"

REGISTRY_ENTRY_POINTS = [
    "executorch::runtime::register_kernels(",
    "executorch::runtime::get_registered_kernels(",
    "executorch::runtime::registry_has_op_function(",
    "executorch::runtime::get_op_function_from_registry(",
    "executorch::runtime::register_backend(",
    "executorch::runtime::get_backend_class(",
    "executorch::runtime::get_num_registered_backends(",
    "executorch::runtime::get_backend_name(",
]


class CheckFailed(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise CheckFailed(msg)


# ---- reporting ------------------------------------------------------------------------------------
class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def ok(self, desc):
        self.passed += 1
        print(f"ok   {desc}", flush=True)

    def bad(self, desc, detail=""):
        self.failed += 1
        print(f"FAIL {desc}", flush=True)
        for line in str(detail).splitlines()[-40:]:
            print(f"     | {line}")

    def check(self, desc, fn, *a, **kw):
        """fn must pass."""
        t0 = time.time()
        try:
            fn(*a, **kw)
        except CheckFailed as e:
            self.bad(f"{desc} ({time.time() - t0:.1f}s)", e)
            return False
        self.ok(f"{desc} ({time.time() - t0:.1f}s)")
        return True

    def fault(self, desc, match, fn, *a, **kw):
        """fn, given a deliberately broken input, must fail with `match` in its message."""
        t0 = time.time()
        try:
            fn(*a, **kw)
        except CheckFailed as e:
            if re.search(match, str(e)):
                self.ok(f"fault injected: {desc}: the check fails ({time.time() - t0:.1f}s)")
                for line in str(e).splitlines()[:3]:
                    print(f"     > {line}")
            else:
                self.bad(f"fault injected: {desc}: the check failed, but not for /{match}/", e)
            return
        self.bad(f"fault injected: {desc}: the check PASSED on a broken input")


R = Report()


# ---- processes -----------------------------------------------------------------------------------
def clean_env(extra=None, keep_ld=False):
    """No loader, Python, CMake or make leftovers from the caller."""
    env = {k: v for k, v in E.items()
           if k not in ("LD_PRELOAD", "PYTHONPATH", "PYTHONHOME", "CMAKE_PREFIX_PATH",
                        "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "MAKEFLAGS", "MFLAGS",
                        "MAKELEVEL", "CMAKE_GENERATOR", "executorch_DIR", "VIRTUAL_ENV")
           and (keep_ld or k != "LD_LIBRARY_PATH")}
    env.update(extra or {})
    return env


def sh(cmd, *, env=None, cwd=None, timeout=900, expect_ok=True, what=None):
    r = subprocess.run(cmd, env=env if env is not None else clean_env(), cwd=cwd,
                       capture_output=True, text=True, timeout=timeout)
    if expect_ok and r.returncode != 0:
        raise CheckFailed(f"{what or ' '.join(map(str, cmd))}: exit {r.returncode}\n"
                          f"{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return r


def source_tree_paths(text):
    """Absolute paths in `text` into the source or build tree, other than the checks' own work
    and venv directories (both of which live under the build directory)."""
    allowed = [os.path.realpath(p) for p in (WORK_ROOT, VENV, CACHE) if p]
    out = []
    for m in re.finditer(re.escape(SRC) + r"(/[^\s;:\"'()]*)?", text):
        p = os.path.realpath(m.group(0))
        if not any(p == a or p.startswith(a + os.sep) for a in allowed):
            out.append(m.group(0))
    return out


def work(name):
    d = os.path.join(WORK_ROOT, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    return d


def wheel_path(path_file=None):
    with open(path_file or E["ET_WHEEL_PATH_FILE"]) as f:
        return os.path.join(SRC, f.read().strip())


def venv_python(venv=None):
    return os.path.join(venv or VENV, "bin", "python")


def package_dir(python):
    r = sh([python, "-c", "import executorch_runtime as et, os; "
                          "print(os.path.dirname(et.__file__))"], cwd="/")
    return r.stdout.strip()


def installed_pkg():
    need(os.path.exists(os.path.join(VENV, ".installed")),
         f"the check venv {VENV} was not set up (see {VENV}.log)")
    return package_dir(venv_python())


def copy_pkg(pkg, dest):
    """A copy of the installed package directory (the C++ SDK with it), to break on purpose."""
    out = os.path.join(dest, "executorch_runtime")
    shutil.copytree(pkg, out, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return out


# ---- ELF -----------------------------------------------------------------------------------------
def dyn(path):
    out = sh(["readelf", "-d", "-W", path]).stdout
    tags = []
    for line in out.splitlines():
        m = re.match(r"\s*0x[0-9a-f]+\s+\((\w+)\)\s+(.*)$", line)
        if m:
            v = re.search(r"\[(.*)\]", m.group(2))
            tags.append((m.group(1), v.group(1) if v else m.group(2).strip()))
    return tags


def tag_values(path, tag):
    return [v for t, v in dyn(path) if t == tag]


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def shared_objects(root):
    out = []
    for d, _, files in os.walk(root):
        for n in files:
            p = os.path.join(d, n)
            if ".so" in n and not os.path.islink(p) and is_elf(p):
                out.append(p)
    return sorted(out)


# ---- wheels --------------------------------------------------------------------------------------
def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def rewrite_wheel(src, dst, *, drop=(), add=None, modify=None, fix_record=True):
    """A copy of wheel `src` with entries dropped, added or modified; RECORD regenerated unless
    fix_record is False (then it is copied as it was)."""
    add = add or {}
    modify = modify or {}
    with zipfile.ZipFile(src) as z:
        entries = [(i, z.read(i.filename)) for i in z.infolist()]
    record_name = next(i.filename for i, _ in entries if i.filename.endswith(".dist-info/RECORD"))
    files = {}
    infos = {}
    for info, data in entries:
        if info.filename in drop:
            continue
        if info.filename in modify:
            data = modify[info.filename](data)
        files[info.filename] = data
        infos[info.filename] = info
    for name, data in add.items():
        files[name] = data
    if fix_record:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        for name in sorted(files):
            if name != record_name:
                w.writerow([name, record_hash(files[name]), len(files[name])])
        w.writerow([record_name, "", ""])
        files[record_name] = buf.getvalue().encode()
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
        for name in [n for n in files if n != record_name] + [record_name]:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            src_info = infos.get(name)
            info.external_attr = src_info.external_attr if src_info else (0o100644 << 16)
            if name in add and files[name][:4] == b"\x7fELF":
                info.external_attr = 0o100755 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, files[name])
    return dst


def unpack(whl, dest):
    with zipfile.ZipFile(whl) as z:
        for info in z.infolist():
            p = z.extract(info, dest)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(p, mode)
    return dest


def make_venv(path, whl, *, system_site=False, deps=True):
    """A fresh venv with `whl` pip-installed; returns its python. Raises CheckFailed."""
    if os.path.exists(path):
        shutil.rmtree(path)
    args = [PYTHON, "-m", "venv"] + (["--system-site-packages"] if system_site else []) + [path]
    sh(args, what="python -m venv")
    pip = [os.path.join(path, "bin", "pip"), "install", "--disable-pip-version-check", "-q"]
    sh(pip + ([] if deps else ["--no-deps"]) + [whl], what=f"pip install {os.path.basename(whl)}",
       cwd="/")
    return venv_python(path)


# ---- goldens -------------------------------------------------------------------------------------
def manifest():
    with open(os.path.join(ZOO, "manifest.json")) as f:
        return json.load(f)


def golden(program, method="forward", call=0):
    """(inputs, outputs, tolerance) of the zoo's recorded call, as numpy arrays."""
    p = next(p for p in manifest()["programs"] if p["name"] == program)
    m = next(m for m in p["methods"] if m["name"] == method)
    c = m["calls"][call]
    load = lambda item: np.load(os.path.join(ZOO, item["file"]), allow_pickle=False)
    return ([load(i) for i in c["inputs"]], [load(o) for o in c["outputs"]], p["tolerance"])


SCALAR_TYPES = {0: np.uint8, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.int64, 5: np.float16,
                6: np.float32, 7: np.float64, 11: np.bool_}


def run_app_golden(app, program, outdir, *, env=None, cwd=None, method="forward"):
    """Runs `app run` on the zoo program's recorded call; outputs must match the goldens."""
    os.makedirs(outdir, exist_ok=True)
    inputs, outputs, tol = golden(program, method)
    files = []
    for k, a in enumerate(inputs):
        f = os.path.join(outdir, f"in{k}.bin")
        np.ascontiguousarray(a).tofile(f)
        files.append(f)
    pte = os.path.join(ZOO, f"{program}.pte")
    r = sh([app, "run", pte, method, outdir] + files, env=env or clean_env(), cwd=cwd,
           expect_ok=False)
    need(r.returncode == 0, f"{os.path.basename(app)} run {program}.pte: exit {r.returncode}\n"
                            f"{r.stdout[-2000:]}{r.stderr[-2000:]}")
    compare_outputs(outdir, outputs, tol, f"{program}.pte")
    return r


def compare_outputs(outdir, outputs, tol, what):
    for k, want in enumerate(outputs):
        with open(os.path.join(outdir, f"out{k}.txt")) as f:
            code, *shape = [int(x) for x in f.read().split()]
        got = np.fromfile(os.path.join(outdir, f"out{k}.bin"), dtype=SCALAR_TYPES[code])
        got = got.reshape(shape)
        need(got.shape == want.shape and got.dtype == want.dtype,
             f"{what} output {k}: {got.dtype}{got.shape}, golden {want.dtype}{want.shape}")
        if got.dtype.kind in "fc":
            need(np.allclose(got, want, atol=tol["atol"], rtol=tol["rtol"]),
                 f"{what} output {k} differs from the golden (max abs diff "
                 f"{np.max(np.abs(got.astype(np.float64) - want)):.3g})")
        else:
            need(np.array_equal(got, want), f"{what} output {k} differs from the golden")


# ---- CMake consumers -----------------------------------------------------------------------------
def cmake_build(src, build, prefix, *, cmake="cmake", generator=None, defs=(), env=None,
                target=None):
    """Configure and build a copy of project `src` (copied next to the build, so nothing of the
    source tree is used); raises CheckFailed with the log."""
    proj = build + "-src"
    if os.path.exists(proj):
        shutil.rmtree(proj)
    shutil.copytree(src, proj)
    args = [cmake, "-S", proj, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}",
            "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF", "-DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF",
            f"-DCMAKE_CXX_COMPILER={shutil.which(CXX[-1]) or CXX[-1]}"] + (
            [f"-DCMAKE_CXX_COMPILER_LAUNCHER={';'.join(CXX[:-1])}"] if CXX[:-1] else []) + ["-DCMAKE_BUILD_TYPE=Release"]
    if generator:
        args += ["-G", generator]
    args += list(defs)
    sh(args, env=env, what=f"cmake configure {os.path.basename(src)}")
    b = [cmake, "--build", build, "--parallel", str(JOBS)]
    if target:
        b += ["--target", target]
    sh(b, env=env, what=f"cmake --build {os.path.basename(src)}")
    return build


def cmake_prefix(python):
    return sh([python, "-c", "import executorch_runtime as et; print(et.cmake_prefix_path())"],
              cwd="/").stdout.strip()


def build_consumer(wd, prefix, *, kernels=False, **kw):
    b = os.path.join(wd, "consumer-kernels" if kernels else "consumer")
    defs = list(kw.pop("defs", ())) + [f"-DWITH_KERNELS={'ON' if kernels else 'OFF'}",
                                       "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed"]
    cmake_build(os.path.join(HERE, "consumer"), b, prefix, defs=defs, **kw)
    return os.path.join(b, "app")


# ====================================================================================================
# setup-venv: the venv the checks share (a fresh one: removed first).
def setup_venv():
    whl = wheel_path()
    stamp = os.path.join(VENV, ".installed")
    t0 = time.time()
    try:
        make_venv(VENV, whl)
    except CheckFailed as e:
        print(f"setup-venv: {e}")
        return 1
    with open(stamp, "w") as f:
        f.write(whl + "\n")
    print(f"setup-venv: {VENV}: pip installed {os.path.basename(whl)} ({time.time() - t0:.1f}s)")
    return 0


# ---- layout (item 1) -----------------------------------------------------------------------------
def check_layout(whl):
    name = os.path.basename(whl)
    m = re.match(r"executorch_runtime-([^-]+)-(cp\d+)-(cp\d+)-([a-z0-9_]+)\.whl$", name)
    need(m, f"wheel file name {name} is not executorch_runtime-<v>-cpXY-cpXY-<platform>.whl")
    need(m.group(1) == VERSION, f"version in the name is {m.group(1)}, mk/config.mk says {VERSION}")
    platform_tag = m.group(4)
    with zipfile.ZipFile(whl) as z:
        infos = {i.filename: i for i in z.infolist()}
        data = {n: z.read(n) for n in infos}
    di = f"executorch_runtime-{VERSION}.dist-info"
    for i in infos.values():
        need(not stat.S_ISLNK(i.external_attr >> 16), f"{i.filename}: a symlink entry")
    lib = "executorch_runtime/lib/"
    reals = {"libexecutorch.so.1": "INPUT(libexecutorch.so.1)",
             "libexecutorch_kernels.so.1": "INPUT(libexecutorch_kernels.so.1)",
             "libexecutorch_backend_xnnpack.so.1": "INPUT(libexecutorch_backend_xnnpack.so.1)"}
    for real, script in reals.items():
        need(lib + real in data and data[lib + real][:4] == b"\x7fELF", f"{lib}{real} missing")
        need((infos[lib + real].external_attr >> 16) & 0o111, f"{lib}{real} is not executable")
        dev = lib + real[:-2]
        need(dev in data, f"{dev} missing")
        text = data[dev].decode(errors="replace")
        need(data[dev][:4] != b"\x7fELF", f"{dev} is a copy of the library, not a linker script")
        need(re.search(r"^\s*" + re.escape(script) + r"\s*$", text, re.M),
             f"{dev} does not say {script}:\n{text}")
        digest = hashlib.sha256(data[lib + real]).digest()
        dups = [n for n, d in data.items() if n != lib + real and hashlib.sha256(d).digest() == digest]
        need(not dups, f"{real} is shipped again as {dups}: two files, two registries")
    # No other file may be a libexecutorch* ELF (another name for the same library).
    others = [n for n, d in data.items() if re.search(r"/libexecutorch[^/]*$", n)
              and d[:4] == b"\x7fELF" and n[len(lib):] not in reals]
    need(not others, f"extra libexecutorch ELF files: {others}")
    exts = [n for n in data if re.match(r"executorch_runtime/_C\.[^/]*\.so$", n)]
    need(len(exts) == 1, f"expected one executorch_runtime/_C*.so, found {exts}")
    for f in ["__init__.py", "__main__.py", "_et_run.py",
              "include/executorch/runtime/core/evalue.h",
              "include/executorch/extension/module/module.h",
              "lib/pkgconfig/executorch.pc",
              "lib/cmake/executorch/executorch-config.cmake",
              "lib/cmake/executorch/executorch-config-version.cmake",
              "share/cmake/executorch/executorch-config.cmake",
              "share/cmake/executorch/executorch-config-version.cmake"]:
        need("executorch_runtime/" + f in data, f"executorch_runtime/{f} missing")
    pc = data["executorch_runtime/lib/pkgconfig/executorch.pc"].decode()
    need(re.search(r"^prefix=\$\{pcfiledir\}/", pc, re.M), "the .pc prefix is not ${pcfiledir}-relative")
    # Nothing of the build machine: no source or build path in any file (the ELF files are
    # stripped of debug sections, their RUNPATHs rewritten).
    for n, d in data.items():
        need(SRC.encode() not in d, f"{n} mentions the source tree {SRC}")
    md = data[f"{di}/METADATA"].decode()
    for field in ["Name: executorch_runtime", f"Version: {VERSION}", "Summary: ",
                  "Requires-Python: ", "Requires-Dist: numpy"]:
        need(re.search(r"^" + re.escape(field), md, re.M), f"METADATA lacks '{field}'")
    for line in ["Metadata-Version: 2.4", "License-Expression: BSD-3-Clause",
                 "License-File: LICENSE"]:
        need(re.search(r"^" + re.escape(line) + r"$", md, re.M), f"METADATA lacks the line '{line}'")
    # Core metadata 2.4: License-Expression replaces the free-text License field, and every
    # License-File names a file under .dist-info/licenses/.
    need(not re.search(r"^License: ", md, re.M), "METADATA has a License field next to "
                                                 "License-Expression")
    with open(os.path.join(SRC, "LICENSE"), "rb") as f:
        need(data.get(f"{di}/licenses/LICENSE") == f.read(),
             f"{di}/licenses/LICENSE is missing or differs from the repository's LICENSE")
    wheel_meta = data[f"{di}/WHEEL"].decode()
    need("Root-Is-Purelib: false" in wheel_meta, "WHEEL: Root-Is-Purelib is not false")
    need(f"Tag: {m.group(2)}-{m.group(3)}-{platform_tag}" in wheel_meta,
         f"WHEEL Tag does not match the file name:\n{wheel_meta}")
    ep = data[f"{di}/entry_points.txt"].decode()
    need(re.search(r"^\[console_scripts\]", ep, re.M) and
         re.search(r"^et-run\s*=\s*executorch_runtime\._et_run:main", ep, re.M),
         f"entry_points.txt has no et-run console script:\n{ep}")
    need(f"{di}/RECORD" in data, "RECORD missing")
    return platform_tag


def check_tag_is_auditwheels(whl, platform_tag):
    aw = os.path.join(E.get("ET_O_ABS", ""), "venv-tools", "bin", "auditwheel")
    if not os.access(aw, os.X_OK):
        need(platform_tag.startswith("linux_"),
             f"no auditwheel to confirm {platform_tag}; only linux_<arch> is allowed then")
        print(f"     (auditwheel unavailable: tag {platform_tag})")
        return
    r = sh([aw, "show", whl], expect_ok=False)
    text = (r.stdout + r.stderr).replace("\n", " ")
    mm = re.search(r'following platform tag:\s*"([a-z0-9_]+)"', text)
    want = mm.group(1) if mm else "linux_x86_64"
    need(platform_tag == want, f"the wheel is tagged {platform_tag}; auditwheel show says {want}")
    print(f"     auditwheel show: {want}")


def c_layout():
    whl = wheel_path()
    wd = work("layout")
    R.check("layout: contents, one real file per library, linker scripts, METADATA/WHEEL/"
            "entry points", check_layout, whl)
    try:
        tag = check_layout(whl)
        R.check(f"layout: platform tag {tag} is the one auditwheel show reports",
                check_tag_is_auditwheels, whl, tag)
    except CheckFailed:
        pass
    with zipfile.ZipFile(whl) as z:
        real = z.read("executorch_runtime/lib/libexecutorch.so.1")
    dup = rewrite_wheel(whl, os.path.join(wd, os.path.basename(whl)),
                        add={"executorch_runtime/lib/libexecutorch.so.1.0.0": real})
    R.fault("a second copy lib/libexecutorch.so.1.0.0", r"shipped again|extra libexecutorch",
            check_layout, dup)
    os.makedirs(os.path.join(wd, "nolicense"))
    di = f"executorch_runtime-{VERSION}.dist-info"
    nolicense = rewrite_wheel(whl, os.path.join(wd, "nolicense", os.path.basename(whl)),
                              drop={f"{di}/licenses/LICENSE"})
    R.fault("the license file left out of .dist-info/licenses/", r"licenses/LICENSE is missing",
            check_layout, nolicense)
    os.makedirs(os.path.join(wd, "copy"))
    copy = rewrite_wheel(whl, os.path.join(wd, "copy", os.path.basename(whl)),
                         modify={"executorch_runtime/lib/libexecutorch.so": lambda d: real})
    R.fault("lib/libexecutorch.so is the library, not a linker script", r"not a linker script",
            check_layout, copy)


# ---- 1. install ----------------------------------------------------------------------------------
PY_ZOO_CODE = r"""
import json, os, sys
import numpy as np
import executorch_runtime as et
zoo, version, venv = sys.argv[1], sys.argv[2], sys.argv[3]
assert et.__version__ == version, (et.__version__, version)
assert os.path.realpath(et.__file__).startswith(os.path.realpath(venv)), et.__file__
man = json.load(open(os.path.join(zoo, "manifest.json")))
load = lambda it: np.load(os.path.join(zoo, it["file"]), allow_pickle=False)
ran = []
for name in ("mlp", "cnn", "multi_method"):
    p = next(p for p in man["programs"] if p["name"] == name)
    prog = et.load(os.path.join(zoo, p["file"]))
    for m in p["methods"]:
        meth = prog.load_method(m["name"])
        for c in m["calls"]:
            outs = meth(*[load(i) for i in c["inputs"]])
            for got, exp in zip(outs, c["outputs"]):
                want = load(exp)
                assert got.shape == want.shape and got.dtype == want.dtype, (name, got.shape)
                assert np.allclose(got, want, atol=p["tolerance"]["atol"],
                                   rtol=p["tolerance"]["rtol"]), name
        ran.append(f"{name}.{m['name']}")
print("ran", " ".join(ran))
"""


def check_install(python, venv):
    r = sh([python, "-c", PY_ZOO_CODE, ZOO, VERSION, venv], cwd="/", what="import + zoo goldens")
    print(f"     {r.stdout.strip()}")
    sh([python, "-m", "pip", "check"], cwd="/", what="pip check")
    et_run = os.path.join(venv, "bin", "et-run")
    need(os.access(et_run, os.X_OK), f"{et_run}: the console script was not installed")
    r = sh([et_run, os.path.join(ZOO, "mlp.pte")], cwd="/", what="et-run mlp.pte")
    need("output 0: float32" in r.stdout, f"et-run printed no output:\n{r.stdout}")


def c_install():
    whl = wheel_path()
    wd = work("install")
    log = VENV + ".log"
    ok = os.path.exists(os.path.join(VENV, ".installed"))
    R.check("install: a fresh venv installed the wheel with pip (numpy resolved as a dependency)",
            need, ok, f"setup-venv failed:\n{open(log).read() if os.path.exists(log) else ''}")
    if ok:
        R.check("install: pip check, import, __version__, mlp/cnn/multi_method vs goldens, et-run",
                check_install, venv_python(), VENV)
    # Fault: the kernel library left out of the wheel.
    broken = rewrite_wheel(whl, os.path.join(wd, os.path.basename(whl)),
                           drop={"executorch_runtime/lib/libexecutorch_kernels.so.1"})

    def broken_install():
        v = os.path.join(wd, "venv-broken")
        py = make_venv(v, broken, system_site=True, deps=False)
        check_install(py, v)
    R.fault("the wheel without lib/libexecutorch_kernels.so.1", r"libexecutorch_kernels\.so\.1",
            broken_install)


# ---- 2. one registry -----------------------------------------------------------------------------
def defined_symbols(path):
    out = sh(["nm", "-DC", "--defined-only", path]).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3:
            syms.append(re.sub(r"@@?\S+$", "", parts[2]))
    return syms


def check_one_registry(root):
    sos = shared_objects(root)
    need(sos, f"no shared objects under {root}")
    owners = {e: [] for e in REGISTRY_ENTRY_POINTS}
    for so in sos:
        for s in defined_symbols(so):
            for e in REGISTRY_ENTRY_POINTS:
                if s.startswith(e):
                    owners[e].append(os.path.relpath(so, root))
    rows = []
    for e, who in owners.items():
        who = sorted(set(who))
        need(len(who) == 1, f"{e}...) is defined by {len(who)} shared objects: {who}")
        need(who[0].endswith("lib/libexecutorch.so.1"), f"{e}...) is defined by {who[0]}")
        rows.append(e)
    ext = [s for s in sos if re.search(r"/_C\.[^/]*\.so$", s)]
    need(len(ext) == 1, f"expected one _C extension, found {ext}")
    undef = sh(["nm", "-DC", "--undefined-only", ext[0]]).stdout
    for e in ("executorch::runtime::get_registered_kernels(",
              "executorch::runtime::get_num_registered_backends("):
        need(e in undef, f"_C does not import {e}...)")
    need("libexecutorch.so.1" in tag_values(ext[0], "NEEDED"), "_C does not NEED libexecutorch.so.1")
    print(f"     {len(sos)} shared objects; {len(rows)} registry entry points, each defined only by "
          f"lib/libexecutorch.so.1; _C imports them")


def c_one_registry():
    whl = wheel_path()
    wd = work("one-registry")
    root = unpack(whl, os.path.join(wd, "unpacked"))
    R.check("one-registry: exactly one definer of the registry entry points (nm -DC), _C imports",
            check_one_registry, root)
    shutil.copyfile(os.path.join(root, "executorch_runtime/lib/libexecutorch.so.1"),
                    os.path.join(root, "executorch_runtime/lib/libexecutorch_copy.so"))
    R.fault("a second definer lib/libexecutorch_copy.so added", r"defined by 2 shared objects",
            check_one_registry, root)


# ---- 3. standalone CMake consumer ----------------------------------------------------------------
def check_cmake_consumer(wd, prefix, pkg):
    app = build_consumer(wd, prefix)
    cache = open(os.path.join(wd, "consumer", "CMakeCache.txt")).read()
    m = re.search(r"^executorch_DIR:PATH=(.*)$", cache, re.M)
    need(m and os.path.realpath(m.group(1)).startswith(os.path.realpath(pkg)),
         f"executorch_DIR is {m.group(1) if m else None}, not inside {pkg}")
    link = open(os.path.join(wd, "consumer", "CMakeFiles", "app.dir", "link.txt")).read()
    for what, text in (("CMakeCache.txt", cache), ("link command", link),
                       ("dynamic section", "\n".join(v for _, v in dyn(app)))):
        leaks = source_tree_paths(text)
        need(not leaks, f"the consumer's {what} names the source/build tree: {leaks[:5]}")
    # Loader-clean: no LD_LIBRARY_PATH, no LD_PRELOAD; a data copy of the programs.
    for prog, want in (("mlp", ["forward"]), ("multi_method", ["forward", "project", "scale"])):
        pte = os.path.join(wd, f"{prog}.pte")
        shutil.copyfile(os.path.join(ZOO, f"{prog}.pte"), pte)
        r = sh([app, "list", pte], env=clean_env(), cwd=wd, what=f"app list {prog}.pte")
        got = re.findall(r"^method (\S+)$", r.stdout, re.M)
        need(got == want, f"{prog}.pte: methods {got}, expected {want}")
    print(f"     executorch_DIR={m.group(1)}")


def c_cmake_consumer():
    pkg = installed_pkg()
    wd = work("cmake-consumer")
    prefix = cmake_prefix(venv_python())
    R.check("cmake-consumer: find_package(executorch) + executorch::runtime against the installed "
            "wheel; lists methods with LD_LIBRARY_PATH/LD_PRELOAD removed",
            check_cmake_consumer, wd, prefix, pkg)
    fd = os.path.join(wd, "fault")
    os.makedirs(fd)
    broken = copy_pkg(pkg, fd)
    os.remove(os.path.join(broken, "lib", "libexecutorch.so.1"))
    R.fault("the package without lib/libexecutorch.so.1", r"runtime library is missing",
            check_cmake_consumer, os.path.join(fd, "w"), os.path.join(broken, "share", "cmake"),
            broken)


# ---- 4. components -------------------------------------------------------------------------------
def check_components(wd, prefix):
    lean = build_consumer(wd, prefix, kernels=False)
    out = os.path.join(wd, "out-lean")
    os.makedirs(out)
    inputs, _, _ = golden("mlp")
    np.ascontiguousarray(inputs[0]).tofile(os.path.join(out, "in0.bin"))
    r = sh([lean, "run", os.path.join(ZOO, "mlp.pte"), "forward", out, os.path.join(out, "in0.bin")],
           expect_ok=False)
    text = r.stdout + r.stderr
    need(r.returncode == 1, f"runtime alone: exit {r.returncode} (expected a clean error, 1)\n{text}")
    missing = re.findall(r"missing operator: '([^']+)'", text)
    need("aten::addmm.out" in missing, f"runtime alone: no missing operator named:\n{text}")
    print(f"     runtime alone: exit 1, missing operators named: {', '.join(sorted(set(missing)))}")
    full = build_consumer(wd, prefix, kernels=True)
    need("libexecutorch_kernels.so.1" in tag_values(full, "NEEDED"),
         "with kernels: NEEDED libexecutorch_kernels.so.1 missing (dropped by --as-needed?)")
    for prog in ("mlp", "cnn"):
        run_app_golden(full, prog, os.path.join(wd, f"out-{prog}"))
    print("     with COMPONENTS kernels: mlp and cnn match their goldens")


def configure_fails_naming(wd, prefix, find_args, name):
    r = sh(["cmake", "-S", os.path.join(HERE, "probe"), "-B", wd, f"-DCMAKE_PREFIX_PATH={prefix}",
            f"-DFIND_ARGS={find_args}"], expect_ok=False)
    text = r.stdout + r.stderr
    need(r.returncode != 0, f"find_package(executorch {find_args}) succeeded")
    need(f"'{name}'" in text, f"find_package(executorch {find_args}) failed without naming "
                              f"'{name}':\n{text}")


def c_components():
    pkg = installed_pkg()
    wd = work("components")
    prefix = cmake_prefix(venv_python())
    R.check("components: runtime alone fails cleanly naming the missing operator; COMPONENTS "
            "kernels runs mlp/cnn to the goldens (consumers linked with --as-needed)",
            check_components, os.path.join(wd, "good"), prefix)
    R.check("components: COMPONENTS bogus fails at configure time naming 'bogus'",
            configure_fails_naming, os.path.join(wd, "bogus"), prefix, "1.0;COMPONENTS;bogus",
            "bogus")
    fd = os.path.join(wd, "fault")
    os.makedirs(fd)
    nokern = copy_pkg(pkg, os.path.join(fd, "nokernels"))
    os.remove(os.path.join(nokern, "lib", "libexecutorch_kernels.so.1"))
    R.check("components: COMPONENTS kernels with the library absent fails naming 'kernels'",
            configure_fails_naming, os.path.join(wd, "nokernels"),
            os.path.join(nokern, "share", "cmake"), "1.0;COMPONENTS;kernels", "kernels")
    # Fault: the kernels component without its scoped --no-as-needed.
    broken = copy_pkg(pkg, os.path.join(fd, "asneeded"))
    for d in ("share", "lib"):
        cfg = os.path.join(broken, d, "cmake", "executorch", "executorch-config.cmake")
        text = open(cfg).read()
        new = text.replace('"LINKER:--push-state,--no-as-needed,${_executorch_c_lib},--pop-state"',
                           '""')
        need(new != text, "fault setup: the --no-as-needed option was not found in the config")
        open(cfg, "w").write(new)
    R.fault("the kernels component without --push-state,--no-as-needed", r"NEEDED libexecutorch_kernels",
            check_components, os.path.join(fd, "w"), os.path.join(broken, "share", "cmake"))


# ---- 5. readelf ----------------------------------------------------------------------------------
def check_readelf_app(app, pkg):
    tags = dyn(app)
    need(("NEEDED", "libexecutorch.so.1") in tags, f"{app}: no NEEDED libexecutorch.so.1")
    need(not [v for t, v in tags if t == "RPATH"], f"{app}: DT_RPATH present: "
                                                   f"{[v for t, v in tags if t == 'RPATH']}")
    rp = [v for t, v in tags if t == "RUNPATH"]
    need(len(rp) == 1, f"{app}: no DT_RUNPATH")
    entries = rp[0].split(":")
    need(entries[:2] == ["$ORIGIN", "$ORIGIN/../lib"],
         f"{app}: RUNPATH {rp[0]} does not start with $ORIGIN:$ORIGIN/../lib")
    libdir = os.path.realpath(os.path.join(pkg, "lib"))
    need(any(os.path.isabs(e) and os.path.realpath(e) == libdir for e in entries),
         f"{app}: RUNPATH {rp[0]} lacks the package's lib directory {libdir}")
    print(f"     consumer: NEEDED libexecutorch.so.1, RUNPATH [{rp[0]}]")


def check_readelf_shipped(pkg):
    want = {"lib/libexecutorch.so.1": None, "lib/libexecutorch_kernels.so.1": "$ORIGIN",
            "lib/libexecutorch_backend_xnnpack.so.1": "$ORIGIN"}
    for so in shared_objects(pkg):
        rel = os.path.relpath(so, pkg)
        tags = dyn(so)
        need(not [v for t, v in tags if t == "RPATH"], f"{rel}: DT_RPATH")
        rp = [v for t, v in tags if t == "RUNPATH"]
        for v in rp:
            for e in v.split(":"):
                need(e.startswith("$ORIGIN"), f"{rel}: RUNPATH entry '{e}' is not $ORIGIN-relative")
        if re.match(r"_C\.[^/]*\.so$", rel):
            need(rp == ["$ORIGIN/lib"], f"{rel}: RUNPATH {rp}, expected [$ORIGIN/lib]")
            needed = [v for t, v in tags if t == "NEEDED"]
            need("libexecutorch.so.1" in needed and "libexecutorch_kernels.so.1" in needed
                 and "libexecutorch_backend_xnnpack.so.1" in needed,
                 f"{rel}: NEEDED {needed}")
        elif rel in want:
            need(rp == ([want[rel]] if want[rel] else []), f"{rel}: RUNPATH {rp}")
            need(("SONAME", os.path.basename(rel)) in tags, f"{rel}: SONAME is not its file name")


def c_readelf():
    pkg = installed_pkg()
    wd = work("readelf")
    prefix = cmake_prefix(venv_python())
    try:
        app = build_consumer(wd, prefix, kernels=True)
    except CheckFailed as e:
        R.bad("readelf: consumer build", e)
        return
    R.check("readelf: consumer NEEDs libexecutorch.so.1, DT_RUNPATH (not RPATH) "
            "$ORIGIN:$ORIGIN/../lib:<package lib>", check_readelf_app, app, pkg)
    R.check("readelf: shipped _C/libraries: $ORIGIN-only RUNPATHs, no RPATH, SONAME = file name",
            check_readelf_shipped, pkg)
    bad_app = os.path.join(wd, "app-rpath")
    shutil.copyfile(app, bad_app)
    os.chmod(bad_app, 0o755)
    sh(["patchelf", "--force-rpath", "--set-rpath", "$ORIGIN:$ORIGIN/../lib:" +
        os.path.join(pkg, "lib"), bad_app])
    R.fault("the consumer relinked with DT_RPATH", r"DT_RPATH", check_readelf_app, bad_app, pkg)
    broken = copy_pkg(pkg, os.path.join(wd, "fault"))
    sh(["patchelf", "--set-rpath", os.path.join(SRC, "build", "lib"),
        os.path.join(broken, "lib", "libexecutorch_kernels.so.1")])
    R.fault("a shipped library with a build-tree RUNPATH", r"not \$ORIGIN-relative",
            check_readelf_shipped, broken)


# ---- 6. relocation -------------------------------------------------------------------------------
def relocate(app, pkg, dest, *, layout="flat"):
    """Copies the app and the package's real libraries elsewhere; RUNPATH entries under the
    package are removed. layout flat: dest/app + dest/lib*.so.1; bin: dest/bin/app + dest/lib/."""
    bindir = dest if layout == "flat" else os.path.join(dest, "bin")
    libdir = dest if layout == "flat" else os.path.join(dest, "lib")
    os.makedirs(bindir, exist_ok=True)
    os.makedirs(libdir, exist_ok=True)
    moved = os.path.join(bindir, "app")
    shutil.copyfile(app, moved)
    os.chmod(moved, 0o755)
    for n in ("libexecutorch.so.1", "libexecutorch_kernels.so.1"):
        shutil.copyfile(os.path.join(pkg, "lib", n), os.path.join(libdir, n))
    rp = (tag_values(moved, "RUNPATH") + tag_values(moved, "RPATH") + [""])[0]
    real_pkg = os.path.realpath(pkg)
    keep = [e for e in rp.split(":") if e and not os.path.realpath(e).startswith(real_pkg)
            and not e.startswith(pkg)]
    sh(["patchelf", "--set-rpath", ":".join(keep), moved])
    return moved


def loaded_from(app, args, env):
    """The path the loader took libexecutorch.so.1 from (LD_DEBUG=libs)."""
    r = sh([app] + args, env=dict(env, LD_DEBUG="libs"), expect_ok=False)
    m = re.search(r"calling init: (\S*libexecutorch\.so\.1)\s*$", r.stderr, re.M)
    return (m.group(1) if m else None), r


def check_relocate(app, pkg, wd):
    for layout in ("flat", "bin"):
        moved = relocate(app, pkg, os.path.join(wd, f"moved-{layout}"), layout=layout)
        rp = tag_values(moved, "RUNPATH")
        need(rp and pkg not in rp[0], f"moved app still has the package in RUNPATH {rp}")
        run_app_golden(moved, "mlp", os.path.join(wd, f"out-{layout}"), cwd="/")
        where, _ = loaded_from(moved, ["list", os.path.join(ZOO, "mlp.pte")], clean_env())
        need(where and os.path.dirname(os.path.realpath(where)) ==
             os.path.realpath(os.path.dirname(moved) if layout == "flat"
                              else os.path.join(os.path.dirname(moved), "..", "lib")),
             f"moved ({layout}) app loaded libexecutorch.so.1 from {where}")
        print(f"     moved ({layout}) RUNPATH [{rp[0]}]: runs mlp to the goldens, "
              f"libexecutorch.so.1 from {where}")
    # LD_LIBRARY_PATH names a different libexecutorch.so.1: that one is loaded (RUNPATH, not RPATH).
    other = os.path.join(wd, "other-lib")
    os.makedirs(other, exist_ok=True)
    shutil.copyfile(os.path.join(pkg, "lib", "libexecutorch.so.1"),
                    os.path.join(other, "libexecutorch.so.1"))
    where, r = loaded_from(app, ["list", os.path.join(ZOO, "mlp.pte")],
                           clean_env({"LD_LIBRARY_PATH": other}))
    need(r.returncode == 0, f"app with LD_LIBRARY_PATH={other}: exit {r.returncode}")
    need(where and os.path.realpath(where) == os.path.realpath(os.path.join(other,
                                                                            "libexecutorch.so.1")),
         f"LD_LIBRARY_PATH={other}, but libexecutorch.so.1 was loaded from {where}")
    print(f"     LD_LIBRARY_PATH={other}: loaded {where}")


def c_relocate():
    pkg = installed_pkg()
    wd = work("relocate")
    prefix = cmake_prefix(venv_python())
    try:
        app = build_consumer(wd, prefix, kernels=True)
    except CheckFailed as e:
        R.bad("relocate: consumer build", e)
        return
    R.check("relocate: consumer + libraries copied elsewhere (flat, bin/+lib/), package paths "
            "removed from RUNPATH: runs to the goldens; LD_LIBRARY_PATH's library is the one "
            "loaded", check_relocate, app, pkg, os.path.join(wd, "good"))
    no_origin = os.path.join(wd, "app-no-origin")
    shutil.copyfile(app, no_origin)
    os.chmod(no_origin, 0o755)
    sh(["patchelf", "--set-rpath", os.path.join(pkg, "lib"), no_origin])
    R.fault("a consumer whose RUNPATH has only the package's absolute directory",
            r"exit|loaded", check_relocate, no_origin, pkg, os.path.join(wd, "f1"))
    rpath = os.path.join(wd, "app-rpath")
    shutil.copyfile(app, rpath)
    os.chmod(rpath, 0o755)
    sh(["patchelf", "--force-rpath", "--set-rpath",
        "$ORIGIN:$ORIGIN/../lib:" + os.path.join(pkg, "lib"), rpath])
    R.fault("a consumer with DT_RPATH instead of DT_RUNPATH", r"LD_LIBRARY_PATH=.*loaded from",
            check_relocate, rpath, pkg, os.path.join(wd, "f2"))


# ---- 7. embedding --------------------------------------------------------------------------------
def python_config():
    cand = sh([PYTHON, "-c", "import sysconfig, os; b = sysconfig.get_config_var('BINDIR'); "
                             "v = sysconfig.get_config_var('VERSION'); "
                             "print(os.path.join(b, f'python{v}-config'))"]).stdout.strip()
    return cand if os.access(cand, os.X_OK) else "python3-config"


def check_embed(embed, site):
    r = sh([embed, site], cwd="/", expect_ok=False)
    text = r.stdout + r.stderr
    need(r.returncode == 0, f"embed: exit {r.returncode}\n{text}")
    for line in r.stdout.splitlines():
        if line.startswith(("cpp-", "python")):
            print(f"     {line}")


def c_embed():
    pkg = installed_pkg()
    wd = work("embed")
    prefix = cmake_prefix(venv_python())
    site = os.path.dirname(pkg)
    try:
        cmake_build(os.path.join(HERE, "embed"), os.path.join(wd, "build"), prefix,
                    defs=[f"-DPYTHON_CONFIG={python_config()}",
                          "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed"])
    except CheckFailed as e:
        R.bad("embed: build", e)
        return
    embed = os.path.join(wd, "build", "embed")
    R.check("embed: a C++ program linking only executorch::runtime imports the extension and sees "
            "exactly the kernels and backends Python reports (same names, same order)",
            check_embed, embed, site)
    # Fault: an extension with its own registry inside: the static build's self-contained _C
    # (from check 13's wheel). A second *shared* copy under another SONAME would not do: ELF
    # interposition binds its registry calls to the program's libexecutorch.so.1, loaded first
    # (measured: the C++ and Python views stayed equal).
    static_path = os.path.join(SRC, static_tree(), "wheel", "wheel-path")
    if not os.path.exists(static_path):
        R.bad("fault injected: the static _C: no static wheel (check-wheel-static runs first)")
        return
    static_whl = wheel_path(static_path)
    fsite = os.path.join(wd, "fault-site")
    twin = copy_pkg(pkg, fsite)
    with zipfile.ZipFile(static_whl) as z:
        for n in z.namelist():
            if re.match(r"executorch_runtime/_C\.[^/]*\.so$", n):
                with open(os.path.join(fsite, n), "wb") as f:
                    f.write(z.read(n))
    R.fault("the extension carrying its own registry (the static build's _C)", r"mismatch",
            check_embed, embed, fsite)


# ---- 8. plugins ----------------------------------------------------------------------------------
def patched_pte(src, dst, old, new):
    data = open(src, "rb").read()
    need(len(old) == len(new), "fault setup: names must have the same length")
    need(data.count(old) == 1, f"{src}: {old!r} occurs {data.count(old)} times")
    open(dst, "wb").write(data.replace(old, new))
    return dst


PLUGIN_CODE = r"""
import os, sys
import numpy as np
import executorch_runtime as et
kernel_plugin, backend_plugin, mlp, mlp_xnn, x_file, want_file, atol, rtol = sys.argv[1:9]
for lib in (kernel_plugin, backend_plugin):
    if lib != "-":
        et.load_library(lib)
ops, bks = et.operators(), et.backends()
print("operators", len(ops), "backends", bks)
assert "plug::relu.out" in ops, "plug::relu.out not in operators()"
assert "WheelPlugBkend" in bks and et.is_available("WheelPlugBkend"), "WheelPlugBkend not in backends()"
x, want = np.load(x_file), np.load(want_file)
(y,) = et.load(mlp).load_method("forward")(x)
assert np.allclose(y, want, atol=float(atol), rtol=float(rtol)), "mlp with plug::relu: not the golden"
print("mlp with plug::relu.out matches the golden")
(z,) = et.load(mlp_xnn).load_method("forward")(x)
assert z.shape == want.shape and np.all(z == 42.0), ("delegate output", z)
print("mlp delegated to WheelPlugBkend: output all 42")
"""


def check_plugins(python, kernel_plugin, backend_plugin, wd):
    mlp = patched_pte(os.path.join(ZOO, "mlp.pte"), os.path.join(wd, "mlp_plug.pte"),
                      b"aten::relu", b"plug::relu")
    mlp_xnn = patched_pte(os.path.join(ZOO, "mlp_xnnpack.pte"), os.path.join(wd, "mlp_plug_be.pte"),
                          b"XnnpackBackend", b"WheelPlugBkend")
    inputs, outputs, tol = golden("mlp")
    np.save(os.path.join(wd, "x.npy"), inputs[0])
    np.save(os.path.join(wd, "want.npy"), outputs[0])
    r = sh([python, "-c", PLUGIN_CODE, kernel_plugin, backend_plugin, mlp, mlp_xnn,
            os.path.join(wd, "x.npy"), os.path.join(wd, "want.npy"), str(tol["atol"]),
            str(tol["rtol"])], cwd="/", expect_ok=False)
    need(r.returncode == 0, f"plugins: exit {r.returncode}\n{r.stdout}{r.stderr[-3000:]}")
    for line in r.stdout.splitlines():
        print(f"     {line}")


def c_plugins():
    installed_pkg()
    wd = work("plugins")
    python = venv_python()
    prefix = cmake_prefix(python)
    b = os.path.join(wd, "build")
    try:
        cmake_build(os.path.join(HERE, "plugins"), b, prefix)
    except CheckFailed as e:
        R.bad("plugins: build", e)
        return
    kp, bp = os.path.join(b, "libkernel_plugin.so"), os.path.join(b, "libbackend_plugin.so")
    R.check("plugins: consumer-built kernel and backend plugins, loaded from Python, appear in "
            "operators()/backends() and are used by programs", check_plugins, python, kp, bp, wd)
    R.fault("the kernel plugin not loaded", r"plug::relu\.out", check_plugins, python, "-", bp, wd)


# ---- 9. pkg-config and plain -l ------------------------------------------------------------------
def check_pkgconfig(pkg, wd):
    pcdir = os.path.join(pkg, "lib", "pkgconfig")
    env = clean_env({"PKG_CONFIG_PATH": pcdir})
    ver = sh(["pkg-config", "--modversion", "executorch"], env=env).stdout.strip()
    need(ver == VERSION, f"pkg-config --modversion: {ver}")
    flags = sh(["pkg-config", "--cflags", "--libs", "executorch"], env=env).stdout.split()
    app_pc = os.path.join(wd, "app-pc")
    sh([*CXX, "-std=c++17", os.path.join(HERE, "consumer", "app.cpp")] + flags + ["-o", app_pc],
       env=env, what="g++ app.cpp $(pkg-config --cflags --libs executorch)")
    run_app_golden(app_pc, "mlp", os.path.join(wd, "out-pc"))
    print(f"     g++ app.cpp {' '.join(flags)}: runs mlp to the goldens (no LD_LIBRARY_PATH)")
    app_plain = os.path.join(wd, "app-plain")
    inc, lib = os.path.join(pkg, "include"), os.path.join(pkg, "lib")
    sh([*CXX, "-std=c++17", os.path.join(HERE, "consumer", "app.cpp"), f"-I{inc}", f"-L{lib}",
        "-lexecutorch", "-o", app_plain], what="g++ app.cpp -I<pkg>/include -L<pkg>/lib -lexecutorch")
    need("libexecutorch.so.1" in tag_values(app_plain, "NEEDED"),
         "plain -lexecutorch: NEEDED libexecutorch.so.1 missing")
    r = sh([app_plain, "list", os.path.join(ZOO, "multi_method.pte")],
           env=clean_env({"LD_LIBRARY_PATH": lib}), what="app-plain list")
    need(re.findall(r"^method (\S+)$", r.stdout, re.M) == ["forward", "project", "scale"],
         f"app-plain list: {r.stdout}")
    print("     g++ app.cpp -I<pkg>/include -L<pkg>/lib -lexecutorch: NEEDED libexecutorch.so.1, "
          "lists methods")
    app_k = os.path.join(wd, "app-plain-kernels")
    sh([*CXX, "-std=c++17", os.path.join(HERE, "consumer", "app.cpp"), f"-I{inc}", f"-L{lib}",
        "-Wl,--push-state,--no-as-needed", "-lexecutorch_kernels", "-Wl,--pop-state",
        "-lexecutorch", f"-Wl,-rpath,{lib}", "-o", app_k], what="g++ ... -lexecutorch_kernels")
    run_app_golden(app_k, "mlp", os.path.join(wd, "out-k"))
    print("     ... -lexecutorch_kernels -lexecutorch -Wl,-rpath,<pkg>/lib: runs mlp to the goldens")


def c_pkgconfig():
    pkg = installed_pkg()
    wd = work("pkgconfig")
    os.makedirs(os.path.join(wd, "good"))
    R.check("pkgconfig: g++ $(pkg-config --cflags --libs executorch) and -I/-L/-lexecutorch "
            "(linker scripts) build and run against the wheel", check_pkgconfig, pkg,
            os.path.join(wd, "good"))
    fd = os.path.join(wd, "fault")
    broken = copy_pkg(pkg, fd)
    os.remove(os.path.join(broken, "lib", "libexecutorch.so"))
    os.remove(os.path.join(broken, "lib", "libexecutorch_kernels.so"))
    os.makedirs(os.path.join(fd, "w"))
    R.fault("the wheel without the lib/libexecutorch.so linker scripts", r"-lexecutorch",
            check_pkgconfig, broken, os.path.join(fd, "w"))
    fd2 = os.path.join(wd, "fault2")
    broken2 = copy_pkg(pkg, fd2)
    pc = os.path.join(broken2, "lib", "pkgconfig", "executorch.pc")
    text = open(pc).read()
    open(pc, "w").write(re.sub(r"^prefix=.*$", "prefix=/opt/executorch-build-machine", text,
                               flags=re.M))
    os.makedirs(os.path.join(fd2, "w"))
    R.fault("a non-relocatable .pc (absolute build-machine prefix)", r"pkg-config|No such file|"
            r"fatal error", check_pkgconfig, broken2, os.path.join(fd2, "w"))


# ---- 10. headers ---------------------------------------------------------------------------------
def check_headers(include):
    headers = []
    for d, _, files in os.walk(include):
        headers += [os.path.relpath(os.path.join(d, f), include) for f in files if f.endswith(".h")]
    headers.sort()
    need(len(headers) > 20, f"only {len(headers)} headers under {include}")

    def one(job):
        h, std = job
        r = subprocess.run([*CXX, f"-std={std}", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                            f"-I{include}", "-x", "c++", "-"], input=f"#include <{h}>\n",
                           capture_output=True, text=True, env=clean_env())
        return h, std, r.returncode, r.stderr

    bad = []
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        for h, std, rc, err in ex.map(one, [(h, s) for h in headers for s in ("c++17", "c++20")]):
            if rc != 0:
                bad.append(f"{h} ({std}): {err.strip().splitlines()[0] if err.strip() else rc}")
    need(not bad, f"{len(bad)} header compilations failed:\n" + "\n".join(bad[:20]))
    print(f"     {len(headers)} headers x C++17/C++20: all compile alone with -Wall -Wextra -Werror")


def c_headers():
    pkg = installed_pkg()
    wd = work("headers")
    R.check("headers: every shipped header compiles on its own, C++17 and C++20, "
            "-Wall -Wextra -Werror", check_headers, os.path.join(pkg, "include"))
    inc = os.path.join(wd, "include")
    os.makedirs(os.path.join(inc, "executorch", "runtime", "core"))
    shutil.copyfile(os.path.join(pkg, "include", "executorch", "runtime", "core", "error.h"),
                    os.path.join(inc, "executorch", "runtime", "core", "error.h"))
    for i in range(21):
        open(os.path.join(inc, "executorch", f"ok{i}.h"), "w").write("#pragma once\nint ok%d();\n" % i)
    open(os.path.join(inc, "executorch", "runtime", "core", "not_self_contained.h"), "w").write(
        "#pragma once\ninline std::size_t n(const std::vector<int>& v) { return v.size(); }\n")
    R.fault("a header that is not self-contained", r"not_self_contained\.h", check_headers, inc)


# ---- 11. CMake matrix ----------------------------------------------------------------------------
def cmake_venv(version):
    """A cached venv with cmake==version and ninja (stamp file: reused across runs)."""
    d = os.path.join(CACHE, f"cmake-{version}")
    stamp = os.path.join(d, ".ok")
    if not os.path.exists(stamp):
        if os.path.exists(d):
            shutil.rmtree(d)
        sh([PYTHON, "-m", "venv", d], what="venv")
        sh([os.path.join(d, "bin", "pip"), "install", "--disable-pip-version-check", "-q",
            f"cmake=={version}", NINJA_PIN], what=f"pip install cmake=={version}", timeout=1200)
        open(stamp, "w").write(version + "\n")
    return d


def matrix_cell(version, generator, prefix, pkg, wd):
    d = cmake_venv(version)
    cmake = os.path.join(d, "bin", "cmake")
    got = sh([cmake, "--version"]).stdout.split()[2]
    need(got == version, f"cmake --version says {got}, wanted {version}")
    env = clean_env({"PATH": os.path.join(d, "bin") + os.pathsep + E.get("PATH", "")})
    tag = f"{version}/{generator.split()[0]}"
    b = os.path.join(wd, f"b-{version}-{generator.split()[0]}")
    try:
        cmake_build(os.path.join(HERE, "consumer"), b, prefix, cmake=cmake, generator=generator,
                    defs=["-DWITH_KERNELS=ON", "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed"], env=env)
        app = os.path.join(b, "app")
        check_readelf_app(app, pkg)
        run_app_golden(app, "mlp", b + "-out")
        moved = relocate(app, pkg, b + "-moved")
        run_app_golden(moved, "mlp", b + "-moved-out", cwd="/")
    except CheckFailed as e:
        raise CheckFailed(f"{tag}: {e}")
    return f"{tag}: RUNPATH [{tag_values(app, 'RUNPATH')[0]}], runs; moved: [{tag_values(moved, 'RUNPATH')[0]}], runs"


def check_matrix(prefix, pkg, wd, cells):
    # Venvs first, one at a time (pip's cache is shared), then the cells in parallel.
    for v in sorted({v for v, _ in cells}):
        cmake_venv(v)
    errors, lines = [], []
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        futs = {ex.submit(matrix_cell, v, g, prefix, pkg, wd): (v, g) for v, g in cells}
        for f in concurrent.futures.as_completed(futs):
            try:
                lines.append(f.result())
            except CheckFailed as e:
                errors.append(str(e))
    for line in sorted(lines):
        print(f"     {line}")
    need(not errors, "\n".join(errors))


def c_cmake_matrix():
    pkg = installed_pkg()
    wd = work("cmake-matrix")
    prefix = cmake_prefix(venv_python())
    cells = [(v, g) for v in CMAKE_VERSIONS for g in GENERATORS]
    R.check(f"cmake-matrix: {len(cells)} cells (CMake {', '.join(CMAKE_VERSIONS)} x Makefiles/Ninja): "
            "configure, build, readelf RUNPATH, run to the goldens, relocate and run",
            check_matrix, prefix, pkg, os.path.join(wd, "good"), cells)
    # Fault: $ORIGIN written straight into the link options (the pre-3.28 bug upstream avoids).
    broken = copy_pkg(pkg, os.path.join(wd, "fault"))
    for d in ("share", "lib"):
        cfg = os.path.join(broken, d, "cmake", "executorch", "executorch-config.cmake")
        text = open(cfg).read()
        new = text.replace('"LINKER:--enable-new-dtags;LINKER:@${_executorch_rsp};',
                           '"LINKER:--enable-new-dtags;LINKER:-rpath,$ORIGIN:$ORIGIN/../lib;')
        need(new != text, "fault setup: the response-file option was not found in the config")
        open(cfg, "w").write(new)
    R.fault("$ORIGIN written into INTERFACE_LINK_OPTIONS, CMake 3.24 (Makefiles and Ninja)",
            r"(?s)(?=.*3\.24\.3/Unix: [^\n]*RUNPATH)(?=.*3\.24\.3/Ninja: [^\n]*RUNPATH)",
            check_matrix, os.path.join(broken, "share", "cmake"), broken,
            os.path.join(wd, "fault-w"), [("3.24.3", g) for g in GENERATORS])


# ---- 12. versions --------------------------------------------------------------------------------
ACCEPT = ["", "1", "1.0", "1.0.0", "1.0.0;EXACT", "1.0...<2.0", "1.0...2.0", "1...<1.1"]
REJECT = ["0.9", "2.0", "1.1", "0.1...<1.0", "0.1...<2.0", "2.0...<3.0"]


def probe(wd, prefix, args, fake_ptr=None, cmake="cmake"):
    b = os.path.join(wd, f"p{len(os.listdir(wd))}")
    cmd = [cmake, "-S", os.path.join(HERE, "probe"), "-B", b, f"-DCMAKE_PREFIX_PATH={prefix}",
           f"-DFIND_ARGS={args}", "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"]
    if fake_ptr:
        cmd.append(f"-DFAKE_SIZEOF_VOID_P={fake_ptr}")
    return sh(cmd, expect_ok=False)


def check_versions(wd, prefixes):
    os.makedirs(wd, exist_ok=True)
    for prefix in prefixes:
        for a in ACCEPT:
            r = probe(wd, prefix, a)
            need(r.returncode == 0 and "probe: ok" in r.stdout,
                 f"find_package(executorch {a}) via {prefix} rejected:\n{r.stdout}{r.stderr}")
        for a in REJECT:
            r = probe(wd, prefix, a)
            need(r.returncode != 0 and re.search(r"compatible with requested version", r.stderr),
                 f"find_package(executorch {a}) via {prefix} accepted or failed otherwise:\n"
                 f"{r.stdout[-1500:]}{r.stderr[-1500:]}")
        r = probe(wd, prefix, "1.0", fake_ptr=4)
        need(r.returncode != 0 and f"{VERSION} (64bit)" in r.stderr,
             f"a 32-bit consumer was not rejected via {prefix}:\n{r.stdout[-800:]}{r.stderr[-800:]}")
    print(f"     accepted {ACCEPT}; rejected {REJECT} and a 32-bit consumer; via "
          f"{len(prefixes)} prefixes (share/cmake and the package root -> lib/cmake)")


def c_version():
    pkg = installed_pkg()
    wd = work("version")
    prefixes = [os.path.join(pkg, "share", "cmake"), pkg]
    R.check("version: same-major requests accepted (ranges too), 0.x/2.x/newer/32-bit rejected; "
            "plain variables; repeated find_package", check_versions, os.path.join(wd, "good"),
            prefixes)
    broken = copy_pkg(pkg, os.path.join(wd, "fault"))
    for d in ("share", "lib"):
        f = os.path.join(broken, d, "cmake", "executorch", "executorch-config-version.cmake")
        text = open(f).read()
        new = text.replace("PACKAGE_FIND_VERSION_MAJOR STREQUAL _executorch_major", "TRUE")
        need(new != text, "fault setup: the major-version test was not found")
        open(f, "w").write(new)
    R.fault("a version file without the same-major rule", r"0\.9\).*rejected|accepted",
            check_versions, os.path.join(wd, "f1"), [os.path.join(broken, "share", "cmake")])
    broken2 = copy_pkg(pkg, os.path.join(wd, "fault2"))
    for d in ("share", "lib"):
        f = os.path.join(broken2, d, "cmake", "executorch", "executorch-config-version.cmake")
        text = open(f).read()
        new = text.replace("set(PACKAGE_VERSION_UNSUITABLE TRUE)", "")
        need(new != text, "fault setup: the pointer-size test was not found")
        open(f, "w").write(new)
    R.fault("a version file without the pointer-size rule", r"32-bit consumer was not rejected",
            check_versions, os.path.join(wd, "f2"), [os.path.join(broken2, "share", "cmake")])


# ---- 13. static wheel ----------------------------------------------------------------------------
# Tests of test/python that assert the shared layout (NEEDED/RUNPATH of _C, lib/*.so.1 files,
# registry symbols imported rather than defined) do not apply to the static wheel.
STATIC_DESELECT = [
    "test_elf.py::test_needed_and_runpath",
    "test_elf.py::test_defines_no_registry",
    "test_elf.py::test_library_links_are_one_file",
    "test_api.py::test_locators",
    # `python -m executorch_runtime --libs` prints the shared link line (no --whole-archive).
    "test_api.py::test_sdk_compiles_a_consumer",
]


def check_static_contents(whl):
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        data = {n: z.read(n) for n in names}
    sos = [n for n in names if re.search(r"\.so(\.\d+)*$", n) and not re.search(r"/_C\.", n)]
    need(not sos, f"the static wheel ships shared libraries: {sos}")
    for a in ("libexecutorch.a", "libexecutorch_kernels.a"):
        need(f"executorch_runtime/lib/{a}" in names, f"lib/{a} missing")
    ext = [n for n in names if re.match(r"executorch_runtime/_C\.[^/]*\.so$", n)]
    need(len(ext) == 1, f"_C: {ext}")
    tmp = os.path.join(WORK_ROOT, "static", "_C-probe.so")
    open(tmp, "wb").write(data[ext[0]])
    needed = tag_values(tmp, "NEEDED")
    need(not [n for n in needed if "executorch" in n], f"_C NEEDs {needed}: not self-contained")
    exported = [s for s in defined_symbols(tmp)]
    need(exported == ["PyInit__C"], f"_C exports {exported[:5]}, not only PyInit__C")
    local = sh(["nm", "-C", "--defined-only", tmp]).stdout
    need("executorch::runtime::get_registered_kernels()" in local,
         "_C does not carry the registry inside (static symbols)")
    print(f"     _C NEEDs {needed}; exports only PyInit__C; registry and kernels inside; "
          f"lib/ has only archives")


def static_tree():
    """The build tree of the static wheel (its own O=, never the shared build's)."""
    return os.path.join(E["ET_O"], "static", "build")


def static_build():
    sd = os.path.join(E["ET_O"], "static")
    # Its own tree, whose archives hold copies of the shared tree's objects (ET_OBJS_FROM,
    # mk/rules.mk): no compile flag depends on SHARED, and the shared wheel this check runs
    # after has built every one of them, so `make SHARED=0` compiles nothing: it archives and
    # links.
    r = sh([E.get("ET_MAKE", "make"), "--no-print-directory", "-C", SRC, f"O={static_tree()}", "SHARED=0",
            f"ET_OBJS_FROM={E['ET_O_ABS']}", f"WHL_DIST={sd}/dist", "wheel"],
           env=clean_env({k: E[k] for k in ("MAKEFLAGS", "MFLAGS") if k in E}),
           what="make SHARED=0 wheel", timeout=3600)
    print("     " + "\n     ".join(r.stdout.strip().splitlines()[-4:]))
    return wheel_path(os.path.join(SRC, static_tree(), "wheel", "wheel-path"))


def check_static_python(whl, wd):
    py = make_venv(os.path.join(wd, "venv"), whl, system_site=True, deps=False)
    need(os.path.realpath(package_dir(py)).startswith(os.path.realpath(wd)),
         "the static venv imports executorch_runtime from elsewhere")
    tests = os.path.join(SRC, "test", "python")
    args = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "."]
    for d in STATIC_DESELECT:
        args += ["--deselect", d]
    # PYTHONPATH as check-python sets it: the tests run other interpreters (a torch venv) that
    # must import this package too.
    site = os.path.dirname(package_dir(py))
    r = sh(args, env=clean_env({"ET_PY_ZOO": ZOO, "PYTHONDONTWRITEBYTECODE": "1",
                                "PYTHONPATH": site}), cwd=tests,
           expect_ok=False, timeout=1800)
    summary = [l for l in r.stdout.splitlines() if re.search(r"\d+ (passed|failed)", l)]
    need(r.returncode == 0, f"pytest against the static wheel: exit {r.returncode}\n"
                            f"{r.stdout[-4000:]}")
    # pytest's own "N passed" would be read as this check's count: keep it off the last line.
    print("     pytest (static wheel): " + (summary[-1].strip("= ").replace("passed", "tests ok")
                                            if summary else "?"))


def c_static():
    wd = work("static")
    try:
        whl = static_build()
    except CheckFailed as e:
        R.bad("static: make SHARED=0 wheel", e)
        return
    R.ok(f"static: make SHARED=0 wheel -> {os.path.basename(whl)}")
    R.check("static: the extension is self-contained, no libexecutorch.so.1 shipped",
            check_static_contents, whl)
    R.check("static: every RECORD hash verifies", check_record, whl)
    R.check(f"static: test/python passes against the installed static wheel (minus "
            f"{len(STATIC_DESELECT)} shared-layout tests)", check_static_python, whl, wd)
    shared = wheel_path()
    with zipfile.ZipFile(shared) as z:
        so = z.read("executorch_runtime/lib/libexecutorch.so.1")
        ext_name = next(n for n in z.namelist() if re.match(r"executorch_runtime/_C\.", n))
        shared_ext = z.read(ext_name)
    os.makedirs(os.path.join(wd, "f1"))
    f1 = rewrite_wheel(whl, os.path.join(wd, "f1", os.path.basename(whl)),
                       add={"executorch_runtime/lib/libexecutorch.so.1": so})
    R.fault("lib/libexecutorch.so.1 added to the static wheel", r"ships shared libraries",
            check_static_contents, f1)
    os.makedirs(os.path.join(wd, "f2"))
    f2 = rewrite_wheel(whl, os.path.join(wd, "f2", os.path.basename(whl)),
                       modify={ext_name: lambda d: shared_ext})
    R.fault("the shared build's _C in the static wheel", r"not self-contained",
            check_static_contents, f2)


# ---- 14. RECORD ----------------------------------------------------------------------------------
def check_record(whl):
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        rec_name = [n for n in names if n.endswith(".dist-info/RECORD")]
        need(len(rec_name) == 1, f"RECORD entries: {rec_name}")
        rows = list(csv.reader(io.StringIO(z.read(rec_name[0]).decode())))
        listed = {}
        for row in rows:
            need(len(row) == 3, f"RECORD row {row}")
            listed[row[0]] = row
        need(set(listed) == set(names),
             f"RECORD and the zip differ: only in RECORD {sorted(set(listed) - set(names))[:5]}, "
             f"only in the zip {sorted(set(names) - set(listed))[:5]}")
        need(listed[rec_name[0]][1:] == ["", ""], "RECORD lists a hash for itself")
        for n in names:
            if n == rec_name[0]:
                continue
            data = z.read(n)
            need(listed[n][1] == record_hash(data), f"{n}: hash does not verify")
            need(listed[n][2] == str(len(data)), f"{n}: size {len(data)}, RECORD says {listed[n][2]}")
    print(f"     {len(names) - 1} files, every sha256 and size verifies")


def c_record():
    whl = wheel_path()
    wd = work("record")
    R.check("record: every file's sha256 and size in RECORD verify; RECORD lists exactly the zip",
            check_record, whl)
    target = "executorch_runtime/__init__.py"
    f1 = rewrite_wheel(whl, os.path.join(wd, "flipped.whl"),
                       modify={target: lambda d: d + b"# tampered\n"}, fix_record=False)
    R.fault("a file changed after RECORD was written", re.escape(target) + r": hash",
            check_record, f1)
    f2 = rewrite_wheel(whl, os.path.join(wd, "extra.whl"),
                       add={"executorch_runtime/unlisted.txt": b"x\n"}, fix_record=False)
    R.fault("a file the RECORD does not list", r"only in the zip", check_record, f2)


# ---- target (a cross wheel) ---------------------------------------------------------------------
ELF_MACHINES = {"aarch64": "AArch64", "x86_64": "Advanced Micro Devices X86-64"}
VERSION_NODE = "EXECUTORCH_1.0"


def check_target_machine(pkg, arch):
    want = ELF_MACHINES[arch]
    elves = [p for p in shared_objects(pkg)]
    need(len(elves) >= 3, f"expected _C and two libraries in {pkg}, found {elves}")
    for so in elves:
        out = sh(["readelf", "-h", "-W", so]).stdout
        m = re.search(r"^\s*Machine:\s*(.*?)\s*$", out, re.M)
        need(m and m.group(1) == want, f"{os.path.relpath(so, pkg)}: machine "
                                       f"{m.group(1) if m else '?'}, not {want}")
    print(f"     {len(elves)} ELF files, all {want}")


def check_version_nodes(pkg):
    rt = os.path.join(pkg, "lib", "libexecutorch.so.1")
    defs = sh(["readelf", "-V", "-W", rt]).stdout
    need(re.search(r"Version definition section[\s\S]*Name: " + re.escape(VERSION_NODE), defs),
         f"libexecutorch.so.1 defines no version node {VERSION_NODE}")
    ext = [p for p in shared_objects(pkg) if re.match(r"_C\.[^/]*\.so$", os.path.basename(p))]
    need(len(ext) == 1, f"expected one _C extension, found {ext}")
    needs = sh(["readelf", "-V", "-W", ext[0]]).stdout
    # The entries under "File: libexecutorch.so.1", up to the next File line.
    need(re.search(r"File: libexecutorch\.so\.1[^\n]*\n(?:\s+0x[0-9a-f]+:\s+Name:[^\n]*\n)*?"
                   r"\s+0x[0-9a-f]+:\s+Name: " + re.escape(VERSION_NODE) + r"\s", needs),
         f"_C does not require {VERSION_NODE} from libexecutorch.so.1")
    print(f"     libexecutorch.so.1 defines {VERSION_NODE}; _C requires it")


TARGET_PY_CODE = r"""
import json, os, platform, sys
import numpy as np
import executorch_runtime as et
zoo, version = sys.argv[1], sys.argv[2]
assert et.__version__ == version, (et.__version__, version)
man = json.load(open(os.path.join(zoo, "manifest.json")))
p = next(p for p in man["programs"] if p["name"] == "mlp")
c = p["methods"][0]["calls"][0]
load = lambda it: np.load(os.path.join(zoo, it["file"]), allow_pickle=False)
outs = et.load(os.path.join(zoo, p["file"])).load_method("forward")(*[load(i) for i in c["inputs"]])
for got, exp in zip(outs, c["outputs"]):
    want = load(exp)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
    assert np.allclose(got, want, atol=p["tolerance"]["atol"], rtol=p["tolerance"]["rtol"])
print("forward ok on", platform.machine(), "numpy", np.__version__, "from", os.path.dirname(et.__file__))
"""


def check_target_python(site):
    cmd = shlex.split(E.get("ET_TARGET_PYTHON", ""))
    need(cmd, "ET_TARGET_PYTHON is not set: no Python of the target to import the package in")
    path = os.pathsep.join([site] + [p for p in [E.get("ET_TARGET_PYTHONPATH", "")] if p])
    env = clean_env({"PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"})
    r = sh(cmd + ["-c", TARGET_PY_CODE, ZOO, VERSION], env=env, cwd="/",
           what="import + forward in the target's Python")
    print(f"     {r.stdout.strip()}")


def c_target():
    whl = wheel_path()
    arch = E.get("ET_ARCH", platform.machine())
    wd = work("target")
    site = unpack(whl, os.path.join(wd, "site"))
    pkg = os.path.join(site, "executorch_runtime")
    R.check(f"target: every shipped ELF is for {arch}", check_target_machine, pkg, arch)
    R.check("target: shipped _C/libraries: $ORIGIN-only RUNPATHs, no RPATH, SONAME = file name",
            check_readelf_shipped, pkg)
    R.check(f"target: {VERSION_NODE} defined by libexecutorch.so.1 and required by _C",
            check_version_nodes, pkg)
    R.check("target: import and forward (mlp) against the goldens in the target's Python",
            check_target_python, site)
    other = next(a for a in ELF_MACHINES if a != arch)
    R.fault(f"the package checked as if built for {other}", r"machine .*, not",
            check_target_machine, pkg, other)
    broken = copy_pkg(pkg, os.path.join(wd, "fault"))
    sh(["patchelf", "--set-rpath", os.path.join(SRC, "build", "lib"),
        os.path.join(broken, "lib", "libexecutorch_kernels.so.1")])
    R.fault("a shipped library with a build-tree RUNPATH", r"not \$ORIGIN-relative",
            check_readelf_shipped, broken)
    rt = os.path.join(broken, "lib", "libexecutorch.so.1")
    with open(rt, "rb") as f:
        data = f.read()
    with open(rt, "wb") as f:
        f.write(data.replace(VERSION_NODE.encode(), b"EXECUTORCH_0.9"))
    R.fault("a runtime whose version node is renamed", r"defines no version node",
            check_version_nodes, broken)
    R.fault("the target's Python without the package's dependencies (no numpy)",
            r"import \+ forward|No module named", check_target_python_without_numpy, site)


def check_target_python_without_numpy(site):
    saved = E.get("ET_TARGET_PYTHONPATH")
    E["ET_TARGET_PYTHONPATH"] = ""
    try:
        check_target_python(site)
    finally:
        if saved is not None:
            E["ET_TARGET_PYTHONPATH"] = saved


CHECKS = {
    "layout": c_layout, "install": c_install, "one-registry": c_one_registry,
    "cmake-consumer": c_cmake_consumer, "components": c_components, "readelf": c_readelf,
    "relocate": c_relocate, "embed": c_embed, "plugins": c_plugins, "pkgconfig": c_pkgconfig,
    "headers": c_headers, "cmake-matrix": c_cmake_matrix, "version": c_version,
    "static": c_static, "record": c_record, "target": c_target,
}


def main():
    if len(sys.argv) != 2 or (sys.argv[1] not in CHECKS and sys.argv[1] != "setup-venv"):
        sys.exit(f"usage: wheelcheck.py setup-venv|{'|'.join(CHECKS)}")
    if sys.argv[1] == "setup-venv":
        sys.exit(setup_venv())
    t0 = time.time()
    try:
        CHECKS[sys.argv[1]]()
    except CheckFailed as e:
        R.bad(f"{sys.argv[1]}: could not run", e)
    except Exception as e:  # a bug in the check itself still counts as a failure
        import traceback
        R.bad(f"{sys.argv[1]}: crashed: {e!r}", traceback.format_exc())
    print(f"{sys.argv[1]}: {time.time() - t0:.1f}s")
    print(f"{R.passed} passed, {R.failed} failed")
    sys.exit(0 if R.failed == 0 else 1)


if __name__ == "__main__":
    main()
