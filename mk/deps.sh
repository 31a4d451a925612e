#!/bin/sh
# mk/deps.sh: the build's one dependency step (Debian packages with apt-get, Python packages
# with pip). mk/deps.mk runs it; `make deps` reaches it directly.
#
#   deps.sh missing          print what is missing (nothing when all is present); never installs
#   deps.sh probes           print the Debian packages and their probes, one per line
#   deps.sh install STAMP    install what is missing, then write STAMP
#   deps.sh verify STAMP     write STAMP if nothing is missing; otherwise name it and fail
#
# Every caller takes one machine-wide lock first, so any number of make processes and build
# trees (`-j`, O=..., the sanitizer and install sub-makes) wait for the one that installs, and
# then find nothing left to do: two apt-get processes would fight over dpkg's own lock.
#
# A cross build adds its own packages: ET_DEPS_CROSS=aarch64 (mk/deps.mk sets it for ARCH=aarch64)
# probes and installs the cross toolchain, qemu-user and the target's Python headers as well;
# without it they are neither probed nor installed. Packages of another Debian architecture
# (name:arch) get that architecture enabled first (dpkg --add-architecture, multiarch). A probe
# of kind `unpack` names a target package that cannot be installed beside the build machine's
# own (Debian's python3.11 is Multi-Arch: allowed, one architecture per machine; python3-numpy
# has no Multi-Arch at all): it is downloaded and unpacked with dpkg-deb -x under
# $ET_DEPS_XROOT instead, a private tree that no package manager knows about.
#
# Tests point it elsewhere through the environment: ET_DEPS_ROOT (a directory standing in for
# / in every probe), ET_DEPS_LOCK (the lock file), ET_DEPS_UID (the user id that decides whether
# apt-get may run), PYTHON (the interpreter that probes and runs pip). apt-get (and dpkg,
# dpkg-deb) is whatever PATH finds.
set -u

mode=${1:-missing}
stamp=${2:-}
root=${ET_DEPS_ROOT:-}
python=${PYTHON:-python3}
lock=${ET_DEPS_LOCK:-${TMPDIR:-/tmp}/executorch-runtime-deps.lock}
xroot=${ET_DEPS_XROOT:-/var/tmp/executorch-runtime-target}

# Debian package, and the command or file whose presence shows it is installed.
# clang-14 and libclang-rt-14-dev: the libFuzzer targets (make fuzz); clang-format-14: make format.
deb_probes() {
  cat <<'EOF'
g++ cmd g++
flatbuffers-compiler cmd flatc
libflatbuffers-dev file /usr/include/flatbuffers/flatbuffers.h
libgtest-dev file /usr/include/gtest/gtest.h
patchelf cmd patchelf
pkg-config cmd pkg-config
cmake cmd cmake
clang-14 cmd clang++-14
clang-format-14 cmd clang-format-14
libclang-rt-14-dev glob /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a
EOF
  case ${ET_DEPS_CROSS:-} in
    '') ;;
    aarch64) cross_probes_aarch64 ;;
    *) echo "deps: no cross packages known for ET_DEPS_CROSS=$ET_DEPS_CROSS" >&2; return 1 ;;
  esac
}

# The aarch64 cross build (mk/cross.mk) and its emulated tests (make check-aarch64): the
# compiler, qemu-user, GoogleTest's sources (compiled for the target), Debian's arm64 C and C++
# runtime libraries for qemu (test/tools/qemu-run.sh says why not the cross toolchain's), the
# arm64 Python headers (multiarch) for the extension; for the wheel's import check under qemu, the
# arm64 interpreter and numpy (unpacked) with numpy's BLAS and LAPACK (multiarch; their
# alternatives links are what numpy's extension modules load).
cross_probes_aarch64() {
  cat <<'EOF'
g++-aarch64-linux-gnu cmd aarch64-linux-gnu-g++
qemu-user-static cmd qemu-aarch64-static
googletest file /usr/src/googletest/googletest/src/gtest-all.cc
libpython3.11-dev:arm64 file /usr/include/aarch64-linux-gnu/python3.11/pyconfig.h
libc6:arm64 file /usr/lib/aarch64-linux-gnu/libc.so.6
libstdc++6:arm64 file /usr/lib/aarch64-linux-gnu/libstdc++.so.6
libblas3:arm64 file /usr/lib/aarch64-linux-gnu/libblas.so.3
liblapack3:arm64 file /usr/lib/aarch64-linux-gnu/liblapack.so.3
python3.11-minimal:arm64 unpack /usr/bin/python3.11
python3-numpy:arm64 unpack /usr/lib/python3/dist-packages/numpy/__init__.py
EOF
}

# dpkg --add-architecture for every foreign architecture among the packages "$@" (pkg:arch).
enable_foreign_archs() {
  for pkg in "$@"; do
    case $pkg in *:*) echo "${pkg##*:}" ;; esac
  done | sort -u | while read -r arch; do
    dpkg --print-foreign-architectures | grep -qx "$arch" || dpkg --add-architecture "$arch" ||
      return 1
  done
}

# Python packages, pinned (pybind11 builds the extension; numpy and pytest run its tests).
PIP_PINS='pybind11==3.1.0 numpy==2.4.6 pytest==9.0.3'
PIP_MODULES='pybind11 numpy pytest'

have_cmd() {
  if [ -n "$root" ]; then [ -x "$root/usr/bin/$1" ]; else command -v "$1" >/dev/null 2>&1; fi
}

missing_debs() {
  deb_probes | while read -r pkg kind what; do
    case $kind in
      cmd) have_cmd "$what" || echo "$pkg" ;;
      file) [ -e "$root$what" ] || echo "$pkg" ;;
      glob) set -- $root$what; [ -e "$1" ] || echo "$pkg" ;;
    esac
  done
}

missing_unpacks() {
  deb_probes | while read -r pkg kind what; do
    [ "$kind" = unpack ] && { [ -e "$xroot$what" ] || echo "$pkg"; }
  done
}

# apt-get download, then dpkg-deb -x into $xroot (missing_unpacks: what is not there yet).
unpack_missing() {
  [ -n "$*" ] || return 0
  echo "  DEPS    unpack $* into $xroot"
  tmp=$(mktemp -d) || return 1
  rc=0
  if (cd "$tmp" && apt-get download "$@" >download.log 2>&1) && mkdir -p "$xroot"; then
    for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$xroot" || rc=1; done
  else
    cat "$tmp/download.log" >&2
    rc=1
  fi
  rm -rf "$tmp"
  return $rc
}

# find_spec looks the modules up without importing them (numpy's import alone takes ~100 ms,
# and this runs every time make reads the makefiles).
missing_pips() {
  "$python" - $PIP_MODULES <<'EOF' 2>/dev/null || echo "$PIP_MODULES"
import importlib.util, sys
print(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))
EOF
}

python_headers_missing() {
  inc=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
  [ -f "$inc/Python.h" ] || echo "$inc"
}

missing() {
  debs=$(missing_debs; missing_unpacks)
  debs=$(echo $debs)
  pips=$(missing_pips)
  set -- $debs $pips
  echo "$*"
}

take_lock() {
  # Created world-writable so another user's build can lock it too; flock needs only read.
  [ -e "$lock" ] || { : >>"$lock" && chmod 0666 "$lock"; } 2>/dev/null
  exec 9<"$lock" || { echo "deps: cannot open the lock file $lock" >&2; exit 1; }
  flock 9
}

write_stamp() {
  mkdir -p "$(dirname "$stamp")" && : >"$stamp"
}

install_missing() {
  debs=$(missing_debs | tr '\n' ' ')
  debs=$(echo $debs)
  unpacks=$(missing_unpacks | tr '\n' ' ')
  unpacks=$(echo $unpacks)
  if [ -n "$debs" ]; then
    if [ "${ET_DEPS_UID:-$(id -u)}" != 0 ]; then
      echo "missing build dependencies; run: sudo apt-get install -y $debs" >&2
      return 1
    fi
    echo "  DEPS    apt-get install $debs"
  fi
  if [ -n "$debs$unpacks" ]; then
    enable_foreign_archs $debs $unpacks &&
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || return 1
  fi
  if [ -n "$debs" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $debs >/dev/null || return 1
  fi
  unpack_missing $unpacks || return 1
  pips=$(missing_pips)
  if [ -n "$pips" ]; then
    echo "  PIP     $PIP_PINS"
    "$python" -m pip install --disable-pip-version-check -q $PIP_PINS || return 1
  fi
  left=$(missing)
  if [ -n "$left" ]; then
    echo "deps: still missing after installing: $left" >&2
    return 1
  fi
}

case $mode in
  missing)
    missing
    ;;
  probes)
    deb_probes
    ;;
  install|verify)
    [ -n "$stamp" ] || { echo "usage: deps.sh $mode STAMP" >&2; exit 2; }
    take_lock
    if [ "$mode" = install ]; then
      install_missing || exit 1
    else
      left=$(missing)
      if [ -n "$left" ]; then
        echo "missing build dependencies: $left; run 'make deps' first" >&2
        exit 1
      fi
    fi
    hdr=$(python_headers_missing)
    if [ -n "$hdr" ]; then
      echo "Python.h not found in '$hdr': install the Python development headers" \
           "(Debian: apt-get install python3-dev)" >&2
      exit 1
    fi
    write_stamp
    ;;
  *)
    echo "usage: deps.sh missing | probes | install STAMP | verify STAMP" >&2
    exit 2
    ;;
esac
