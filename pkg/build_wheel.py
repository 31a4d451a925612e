#!/usr/bin/env python3
"""build_wheel.py: assemble the executorch_runtime wheel from a build tree (run by mk/wheel.mk).

The wheel is a Python package and a C++ SDK at once. Layout inside the zip:

    executorch_runtime/                      the Python package (pybind/executorch_runtime/*)
    executorch_runtime/_C<ext-suffix>        RUNPATH $ORIGIN/lib (shared build); none (static)
    executorch_runtime/_et_run.py            the et-run console script (pkg/et_run_console.py)
    executorch_runtime/lib/libexecutorch.so.1            the one real file (SONAME), no RUNPATH
    executorch_runtime/lib/libexecutorch_kernels.so.1    the one real file, RUNPATH $ORIGIN
    executorch_runtime/lib/libexecutorch_backend_xnnpack.so.1   the same (XnnpackBackend)
    executorch_runtime/lib/libexecutorch.so              GNU ld script: INPUT(libexecutorch.so.1)
    executorch_runtime/lib/libexecutorch_kernels.so      GNU ld script, same idea (and
                                                         libexecutorch_backend_xnnpack.so)
    executorch_runtime/lib/lib*.a                        static build only (make SHARED=0)
    executorch_runtime/lib/pkgconfig/executorch.pc       ${pcfiledir}-relative
    executorch_runtime/lib/cmake/executorch/executorch-config{,-version}.cmake
    executorch_runtime/share/cmake/executorch/executorch-config{,-version}.cmake
    executorch_runtime/include/executorch/...            the public headers
    executorch_runtime-<v>.dist-info/{METADATA,WHEEL,entry_points.txt,top_level.txt,RECORD}
    executorch_runtime-<v>.dist-info/licenses/LICENSE    the repository's LICENSE

METADATA is core metadata 2.4: the license is an SPDX expression (License-Expression) and each
license file is named by a License-File field and shipped under .dist-info/licenses/ (the legacy
free-text License field is not written: 2.4 forbids it next to License-Expression).

A zip has no symlinks (zipfile stores what a link points to), so nothing here is a link: each
library is one regular file under its SONAME, and the linker names are scripts, not copies; two
copies loaded under two names would be two registries.

The shipped ELF files are copies of the build tree's, with their RUNPATH rewritten by patchelf to
$ORIGIN-relative entries only and their debug sections stripped (no build path survives in them).
The platform tag is the one `auditwheel show` reports for a provisional wheel (linux_<arch> when
auditwheel is unavailable or reports nothing better). Entries are sorted, dated SOURCE_DATE_EPOCH
(default 1980-01-01) and given fixed modes, so the same inputs give the same bytes.
"""

import argparse
import base64
import csv
import hashlib
import io
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import zipfile

PKG = "executorch_runtime"
DIST = "executorch_runtime"


def die(msg):
    sys.exit(f"build_wheel.py: {msg}")


# The target's strip (a cross build's $(CROSS_COMPILE)strip: the build machine's does not read
# another architecture's ELF files); set from --strip.
STRIP = "strip"


def run(*cmd, capture=False):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        die(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def dynamic_tags(path):
    """(tag, value) pairs of readelf -d, e.g. ('RUNPATH', '$ORIGIN/lib')."""
    out = run("readelf", "-d", "-W", path)
    tags = []
    for line in out.splitlines():
        m = re.match(r"\s*0x[0-9a-f]+\s+\((\w+)\)\s+(.*)$", line)
        if m:
            v = re.search(r"\[(.*)\]", m.group(2))
            tags.append((m.group(1), v.group(1) if v else m.group(2).strip()))
    return tags


def set_runpath(path, runpath):
    """RUNPATH := runpath ('' removes it); verifies DT_RUNPATH (never DT_RPATH) afterwards."""
    if runpath:
        run("patchelf", "--set-rpath", runpath, path)
    else:
        run("patchelf", "--remove-rpath", path)
    tags = dynamic_tags(path)
    if any(t == "RPATH" for t, _ in tags):
        # patchelf keeps an existing DT_RPATH's kind; the build links with --enable-new-dtags.
        die(f"{path}: DT_RPATH present (link with -Wl,--enable-new-dtags)")
    got = [v for t, v in tags if t == "RUNPATH"]
    if runpath and got != [runpath]:
        die(f"{path}: RUNPATH is {got}, wanted [{runpath}]")
    if not runpath and got:
        die(f"{path}: RUNPATH {got} survived --remove-rpath")


def copy_elf(src, dst, runpath):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)  # a regular file even when src is a symlink
    run(STRIP, "--strip-debug", dst)
    if runpath is not None:
        set_runpath(dst, runpath)


def rewrite_set_line(text, var, value, where):
    """Replaces the single line set(<var> "<anything>") with set(<var> "<value>")."""
    pat = re.compile(r'^set\(' + re.escape(var) + r' ".*"\)$', re.M)
    new, n = pat.subn(f'set({var} "{value}")', text)
    if n != 1:
        die(f"{where}: expected one line set({var} \"...\"), found {n}")
    return new


def stage_cmake(args, root):
    """The CMake package twice, each copy's relative lib/include paths fitted to its directory."""
    with open(args.cmake_config) as f:
        config = f.read()
    with open(args.cmake_version) as f:
        version = f.read()
    version = rewrite_set_line(version, "PACKAGE_VERSION", args.version, args.cmake_version)
    version = rewrite_set_line(version, "_executorch_sizeof_void_p", str(args.sizeof_void_p),
                               args.cmake_version)
    for d in ("lib/cmake/executorch", "share/cmake/executorch"):
        out = os.path.join(root, d)
        os.makedirs(out, exist_ok=True)
        libdir = os.path.relpath(os.path.join(root, "lib"), out)
        incdir = os.path.relpath(os.path.join(root, "include"), out)
        c = rewrite_set_line(config, "_executorch_libdir_rel", libdir, args.cmake_config)
        c = rewrite_set_line(c, "_executorch_includedir_rel", incdir, args.cmake_config)
        c = rewrite_set_line(c, "_executorch_soversion", args.version.split(".")[0],
                             args.cmake_config)
        with open(os.path.join(out, "executorch-config.cmake"), "w") as f:
            f.write(c)
        with open(os.path.join(out, "executorch-config-version.cmake"), "w") as f:
            f.write(version)


def stage_pc(args, root, shared):
    """lib/pkgconfig/executorch.pc from pkg/executorch.pc.in, relative to ${pcfiledir}."""
    with open(args.pc_in) as f:
        pc = f.read()
    if shared:
        # The kernels library is registration-only: keep it scoped --no-as-needed. The RUNPATH
        # names the package's lib directory, so the program runs without LD_LIBRARY_PATH.
        libs = ("-Wl,--push-state,--no-as-needed -lexecutorch_backend_xnnpack -lexecutorch_kernels "
                "-Wl,--pop-state -lexecutorch -Wl,--enable-new-dtags -Wl,-rpath,${libdir}")
        note = ("# Wheel (shared): Libs links XnnpackBackend and the kernels (scoped --no-as-needed: "
                "they register from static initializers) and the runtime, with a RUNPATH to ${libdir}.")
    else:
        libs = ("-Wl,--whole-archive -lexecutorch_backend_xnnpack -lexecutorch_kernels -lexecutorch "
                "-Wl,--no-whole-archive -ldl -pthread")
        note = ("# Wheel (static, make SHARED=0): Libs takes the whole archives, since kernels and "
                "backends register from static initializers.")
    subs = {
        "@PC_NOTE@": note,
        "@PC_PREFIX@": "${pcfiledir}/../..",
        "@PC_LIBDIR@": "${prefix}/lib",
        "@PC_INCLUDEDIR@": "${prefix}/include",
        "@PC_LIBS@": libs,
        "@VERSION@": args.version,
    }
    for k, v in subs.items():
        if k not in pc:
            die(f"{args.pc_in}: placeholder {k} missing")
        pc = pc.replace(k, v)
    left = re.findall(r"@[A-Z_]+@", pc)
    if left:
        die(f"{args.pc_in}: unreplaced placeholders {left}")
    d = os.path.join(root, "lib", "pkgconfig")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "executorch.pc"), "w") as f:
        f.write(pc)


LD_SCRIPT = """\
/* GNU ld script: `-lexecutorch{suffix}` links {target}, the one real file in this directory.
   ld looks INPUT() names up in the library search path, so use it with -L<this directory>
   (pkg-config --libs executorch does). Not a copy of the library: a zip has no symlinks, and a
   second copy loaded under another name would be a second kernel/backend registry. */
INPUT({target})
"""


def stage(args):
    root_stage = args.stage
    if os.path.exists(root_stage):
        shutil.rmtree(root_stage)
    root = os.path.join(root_stage, PKG)
    os.makedirs(root)
    shared = bool(args.shared_lib)

    for src in args.py_file:
        shutil.copyfile(src, os.path.join(root, os.path.basename(src)))
    shutil.copyfile(args.console, os.path.join(root, "_et_run.py"))

    ext_name = os.path.basename(args.ext)
    # Shared: the extension finds lib/ next to itself. Static: it needs nothing of ours.
    copy_elf(args.ext, os.path.join(root, ext_name), "$ORIGIN/lib" if shared else "")

    for spec in args.shared_lib:
        src, soname = spec.split(":", 1)
        dst = os.path.join(root, "lib", soname)
        # The runtime needs nothing of ours; every other library finds it beside itself.
        copy_elf(src, dst, "" if soname.startswith("libexecutorch.so.") else "$ORIGIN")
        got = [v for t, v in dynamic_tags(dst) if t == "SONAME"]
        if got != [soname]:
            die(f"{src}: SONAME {got}, shipped as {soname}")
        base = soname.split(".so.")[0]
        with open(os.path.join(root, "lib", base + ".so"), "w") as f:
            f.write(LD_SCRIPT.format(suffix=base[len("libexecutorch"):], target=soname))
    for src in args.static_lib:
        dst = os.path.join(root, "lib", os.path.basename(src))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
        run(STRIP, "--strip-debug", dst)

    with open(args.headers) as f:
        for line in f:
            if not line.strip():
                continue
            src, dest = line.split()
            dst = os.path.join(root, "include", "executorch", dest)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)

    stage_cmake(args, root)
    stage_pc(args, root, shared)
    return root_stage


def metadata(args):
    with open(args.readme) as f:
        readme = f.read()
    lines = [
        "Metadata-Version: 2.4",
        f"Name: {DIST}",
        f"Version: {args.version}",
        "Summary: Run ExecuTorch .pte programs from Python and C++: bindings plus the C++ SDK "
        "(libexecutorch.so.1, headers, CMake and pkg-config files)",
        f"License-Expression: {args.license_expression}",
        *(f"License-File: {os.path.basename(p)}" for p in args.license_file),
        "Requires-Python: >=3.11,<3.12",
        "Requires-Dist: numpy",
        "Classifier: Programming Language :: Python :: 3.11",
        "Classifier: Programming Language :: C++",
        "Classifier: Operating System :: POSIX :: Linux",
        "Description-Content-Type: text/markdown",
        "",
        readme,
    ]
    return "\n".join(lines)


def zip_tree(stage_root, out_path, tag, args):
    """Writes the wheel: every staged file, the dist-info files, RECORD last."""
    distinfo = f"{DIST}-{args.version}.dist-info"
    files = {}
    for dirpath, dirnames, filenames in os.walk(stage_root):
        dirnames.sort()
        for name in filenames:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                die(f"{p}: a symlink in the stage (a zip would store a second copy)")
            with open(p, "rb") as f:
                files[os.path.relpath(p, stage_root)] = f.read()
    files[f"{distinfo}/METADATA"] = metadata(args).encode()
    files[f"{distinfo}/WHEEL"] = (
        "Wheel-Version: 1.0\n"
        "Generator: executorch-runtime pkg/build_wheel.py\n"
        "Root-Is-Purelib: false\n"
        f"Tag: {args.python_tag}-{args.python_tag}-{tag}\n").encode()
    files[f"{distinfo}/entry_points.txt"] = (
        "[console_scripts]\net-run = executorch_runtime._et_run:main\n").encode()
    files[f"{distinfo}/top_level.txt"] = f"{PKG}\n".encode()
    for path in args.license_file:
        with open(path, "rb") as f:
            files[f"{distinfo}/licenses/{os.path.basename(path)}"] = f.read()

    record = io.StringIO()
    w = csv.writer(record, lineterminator="\n")
    for name in sorted(files):
        digest = base64.urlsafe_b64encode(hashlib.sha256(files[name]).digest()).rstrip(b"=")
        w.writerow([name, "sha256=" + digest.decode(), len(files[name])])
    w.writerow([f"{distinfo}/RECORD", "", ""])

    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    date = time.gmtime(max(epoch, 315532800))[:6]
    tmp = out_path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        order = sorted(n for n in files if not n.startswith(distinfo))
        order += sorted(n for n in files if n.startswith(distinfo))
        for name in order + [f"{distinfo}/RECORD"]:
            data = record.getvalue().encode() if name.endswith("/RECORD") else files[name]
            info = zipfile.ZipInfo(name, date_time=date)
            mode = 0o755 if data[:4] == b"\x7fELF" and not name.endswith(".a") else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, out_path)


def wheel_name(args, tag):
    return f"{DIST}-{args.version}-{args.python_tag}-{args.python_tag}-{tag}.whl"


def auditwheel_tag(args, provisional):
    """The platform tag `auditwheel show` names for the wheel, or None."""
    if not args.auditwheel or not os.access(args.auditwheel, os.X_OK):
        return None
    r = subprocess.run([args.auditwheel, "show", provisional], capture_output=True, text=True)
    text = (r.stdout + r.stderr).replace("\n", " ")
    m = re.search(r'consistent with the following platform tag:\s*"([a-z0-9_]+)"', text)
    if r.returncode != 0 or not m:
        print(f"build_wheel.py: auditwheel show gave no tag (exit {r.returncode}); using the "
              f"linux tag\n{r.stdout}{r.stderr}", file=sys.stderr)
        return None
    return m.group(1)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--version", required=True)
    p.add_argument("--python-tag", required=True, help="e.g. cp311")
    p.add_argument("--stage", required=True, help="staging directory (recreated)")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--ext", required=True, help="the built _C extension")
    p.add_argument("--py-file", action="append", default=[])
    p.add_argument("--console", required=True, help="module installed as _et_run.py")
    p.add_argument("--shared-lib", action="append", default=[], metavar="PATH:SONAME")
    p.add_argument("--static-lib", action="append", default=[])
    p.add_argument("--headers", required=True, help="file of 'source dest' lines")
    p.add_argument("--cmake-config", required=True)
    p.add_argument("--cmake-version", required=True)
    p.add_argument("--pc-in", required=True)
    p.add_argument("--readme", required=True)
    p.add_argument("--license-expression", required=True, help="SPDX, e.g. BSD-3-Clause")
    p.add_argument("--license-file", action="append", default=[],
                   help="shipped as .dist-info/licenses/<name> and named by License-File")
    p.add_argument("--sizeof-void-p", type=int, default=8)
    p.add_argument("--auditwheel", default="")
    p.add_argument("--strip", default="strip", help="the strip that reads the target's ELF files")
    p.add_argument("--arch", default=platform.machine(),
                   help="the target machine of the ELF files (a cross build's ARCH): linux_<arch>")
    p.add_argument("--path-file", required=True, help="written with the wheel's path")
    args = p.parse_args()
    global STRIP
    STRIP = args.strip
    if bool(args.shared_lib) == bool(args.static_lib):
        die("give --shared-lib (shared build) or --static-lib (static build), not both or none")

    stage_root = stage(args)
    os.makedirs(args.out_dir, exist_ok=True)
    for old in os.listdir(args.out_dir):
        if old.startswith(f"{DIST}-") and old.endswith(".whl"):
            os.remove(os.path.join(args.out_dir, old))
    linux_tag = "linux_" + args.arch
    provisional = os.path.join(args.out_dir, wheel_name(args, linux_tag))
    zip_tree(stage_root, provisional, linux_tag, args)
    tag = auditwheel_tag(args, provisional) or linux_tag
    final = os.path.join(args.out_dir, wheel_name(args, tag))
    if final != provisional:
        os.remove(provisional)
        zip_tree(stage_root, final, tag, args)
    with open(args.path_file + ".tmp", "w") as f:
        f.write(os.path.abspath(final) + "\n")
    os.replace(args.path_file + ".tmp", args.path_file)
    print(f"  WHEEL   {final} ({os.path.getsize(final)} bytes, tag {tag})")


if __name__ == "__main__":
    main()
