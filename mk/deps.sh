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
# Tests point it elsewhere through the environment: ET_DEPS_ROOT (a directory standing in for
# / in every probe), ET_DEPS_LOCK (the lock file), ET_DEPS_UID (the user id that decides whether
# apt-get may run), PYTHON (the interpreter that probes and runs pip). apt-get is whatever PATH
# finds.
set -u

mode=${1:-missing}
stamp=${2:-}
root=${ET_DEPS_ROOT:-}
python=${PYTHON:-python3}
lock=${ET_DEPS_LOCK:-${TMPDIR:-/tmp}/executorch-runtime-deps.lock}

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
  debs=$(missing_debs | tr '\n' ' ')
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
  if [ -n "$debs" ]; then
    if [ "${ET_DEPS_UID:-$(id -u)}" != 0 ]; then
      echo "missing build dependencies; run: sudo apt-get install -y $debs" >&2
      return 1
    fi
    echo "  DEPS    apt-get install $debs"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $debs >/dev/null || return 1
  fi
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
