#!/bin/sh
# check-install.sh: the install check of `make check` (mk/install.mk runs it through run-check.sh).
#
# Environment (set by mk/install.mk): ET_MAKE ET_SRC ET_O ET_SHARED ET_VERSION ET_VERSION_MAJOR ET_CXX.
# Runs in $ET_SRC (make's directory). The install sub-make installs from the tree $ET_O, whose
# libraries make has built before it runs this check (mk/install.mk), so the sub-make only
# copies. Everything else is written under $ET_O/check-install, which only this check uses.
#
#  A. DESTDIR-staged install (PREFIX=/opt/executorch, a path that does not exist here, so every
#     lookup that works proves the installed files are relocatable): layout, modes, links, no
#     RUNPATH; a consumer built with pkg-config + g++ and one with find_package(executorch), both
#     run with LD_LIBRARY_PATH unset; the CMake version rule, pointer-size check and components;
#     re-install; uninstall leaves nothing.
#  B. PREFIX-style install in a Debian multiarch layout (LIBDIR=<prefix>/lib/x86_64-linux-gnu, so
#     the CMake files sit four levels down): the .pc and CMake files still resolve, a pkg-config
#     consumer runs, and uninstall removes what it created but keeps directories that were there.
#
# Prints one line per assertion and ends with "N passed, N failed"; exits non-zero on a failure.

set -u
: "${ET_MAKE:?}" "${ET_SRC:?}" "${ET_O:?}" "${ET_SHARED:?}" "${ET_VERSION:?}" "${ET_VERSION_MAJOR:?}"
: "${ET_CXX:=g++}"
unset LD_LIBRARY_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR CMAKE_PREFIX_PATH executorch_DIR

cd "$ET_SRC" || exit 1
T=$(cd "$ET_O" && pwd)/check-install || exit 1
rm -rf "$T" && mkdir -p "$T" || exit 1
SDK=$ET_SRC/test/sdk
LOG=$T/step.log
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# t DESC CMD...: CMD must succeed; its output is shown only on failure.
t() {
  d=$1; shift
  if "$@" >"$LOG" 2>&1; then ok "$d"; else bad "$d"; sed 's/^/     | /' "$LOG" | tail -n 40; fi
}
# t_fail DESC PATTERN CMD...: CMD must fail and print PATTERN (a fixed string).
t_fail() {
  d=$1; pat=$2; shift 2
  if "$@" >"$LOG" 2>&1; then
    bad "$d (succeeded)"; sed 's/^/     | /' "$LOG" | tail -n 20
  elif grep -qF -- "$pat" "$LOG"; then
    ok "$d"
  else
    bad "$d (failed without '$pat')"; sed 's/^/     | /' "$LOG" | tail -n 40
  fi
}

# The make that installs; the parent's MAKEFLAGS (jobserver, -j, command-line variables) pass
# through, so its flags are the parent's and nothing is rebuilt, and every destination variable
# is given here so none of the parent's leak in.
mk() {
  "$ET_MAKE" --no-print-directory -C "$ET_SRC" O="$ET_O" "$@"
}
# CMake and the consumer builds must not see the parent make's MAKEFLAGS.
clean_env() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$@"; }
cmake_cfg() { clean_env cmake -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF "$@"; }

# Source headers that must be installed: the public dirs, not detail/ (same rule as install.mk).
expected_headers() {
  ( cd "$ET_SRC" && for r in runtime/core runtime/platform runtime/kernel runtime/backend \
      runtime/executor runtime/extension runtime/devtools; do
      [ -d "$r" ] && find "$r" -type f -name '*.h' -not -path '*/detail/*'
    done ) | sed -e 's|^runtime/extension/|extension/|' -e 's|^runtime/devtools/|devtools/|' |
    LC_ALL=C sort
}

no_runpath() { ! readelf -d "$1" | grep -Eq '\((RPATH|RUNPATH)\)'; }
has_soname() { readelf -d "$1" | grep -q "(SONAME).*\[libexecutorch.so.$ET_VERSION_MAJOR\]"; }
needs_core() { readelf -d "$1" | grep -q "(NEEDED).*\[libexecutorch.so.$ET_VERSION_MAJOR\]"; }
lacks_core() { ! readelf -d "$1" | grep -q "(NEEDED).*\[libexecutorch"; }
has_runpath() { readelf -d "$1" | grep -q "(RUNPATH)"; }
link_is() { [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ]; }
mode_is() { [ "$(stat -c %a "$1")" = "$2" ]; }
run() { env -u LD_LIBRARY_PATH "$1" | grep -qx 'sdk-consumer: ok'; }
only_0644() { [ -z "$(find "$1" -type f ! -perm 0644)" ]; }
no_detail() { [ -z "$(find "$1" -path '*/detail/*')" ]; }
same_headers() {
  expected_headers >"$T/want.txt"
  (cd "$1/executorch" && find . -type f -name '*.h' | sed 's|^\./||' | LC_ALL=C sort) >"$T/got.txt"
  diff -u "$T/want.txt" "$T/got.txt"
}
empty_tree() { [ ! -e "$1" ] || [ -z "$(find "$1" ! -type d)" ]; }
pc() { PKG_CONFIG_PATH=$1 pkg-config "$2" executorch; }
pc_is() { [ "$(PKG_CONFIG_PATH=$1 pkg-config "$2" executorch)" = "$3" ]; }

# pkg_consumer PCDIR OUT: g++ + pkg-config; the program finds the library through its own RUNPATH.
pkg_consumer() {
  cflags=$(PKG_CONFIG_PATH=$1 pkg-config --cflags executorch) &&
  libs=$(PKG_CONFIG_PATH=$1 pkg-config --libs executorch) &&
  libdir=$(PKG_CONFIG_PATH=$1 pkg-config --variable=libdir executorch) &&
  echo "$ET_CXX -std=c++17 $cflags ... $libs -Wl,-rpath,$libdir" &&
  clean_env $ET_CXX -std=c++17 -Wall -Wextra -Werror $cflags "$SDK/consumer/app.cpp" -o "$2" \
    $libs -Wl,--enable-new-dtags -Wl,-rpath,"$libdir"
}

lib_checks() { # LIBDIR
  if [ "$ET_SHARED" = 1 ]; then
    real=libexecutorch.so.$ET_VERSION
    t "real file $real, mode 0755" mode_is "$1/$real" 755
    t "libexecutorch.so.$ET_VERSION_MAJOR -> $real" link_is "$1/libexecutorch.so.$ET_VERSION_MAJOR" "$real"
    t "libexecutorch.so -> libexecutorch.so.$ET_VERSION_MAJOR" link_is "$1/libexecutorch.so" "libexecutorch.so.$ET_VERSION_MAJOR"
    t "installed core has SONAME libexecutorch.so.$ET_VERSION_MAJOR" has_soname "$1/$real"
    t "installed core has no RPATH/RUNPATH" no_runpath "$1/$real"
  else
    t "libexecutorch.a, mode 0644, no .so" sh -c '[ -f "$1/libexecutorch.a" ] && [ ! -e "$1/libexecutorch.so" ] && [ "$(stat -c %a "$1/libexecutorch.a")" = 644 ]' - "$1"
  fi
}

# ---- A. DESTDIR-staged install --------------------------------------------------------------------
DEST=$T/dest
PFX=/opt/executorch
ROOT=$DEST$PFX
A_VARS="DESTDIR=$DEST PREFIX=$PFX EXEC_PREFIX=$PFX LIBDIR=$PFX/lib INCLUDEDIR=$PFX/include BINDIR=$PFX/bin PKGCONFIGDIR=$PFX/lib/pkgconfig CMAKEDIR=$PFX/lib/cmake/executorch"
echo "== A: make install $A_VARS"
# shellcheck disable=SC2086
t "A: make install (DESTDIR=$DEST PREFIX=$PFX)" mk $A_VARS install
lib_checks "$ROOT/lib"
t "A: headers = public source headers (no detail/)" same_headers "$ROOT/include"
t "A: headers are mode 0644" only_0644 "$ROOT/include/executorch"
t "A: no detail/ directory installed" no_detail "$ROOT/include/executorch"
t "A: executorch.pc and CMake files installed" test -f "$ROOT/lib/pkgconfig/executorch.pc" \
  -a -f "$ROOT/lib/cmake/executorch/executorch-config.cmake" \
  -a -f "$ROOT/lib/cmake/executorch/executorch-config-version.cmake"
t "A: nothing absolute in the .pc and CMake files" sh -c '! grep -rn -e "$1" -e "$2" "$3/lib/pkgconfig" "$3/lib/cmake"' - "$PFX" "$DEST" "$ROOT"
t "A: .pc uses \${pcfiledir}" grep -q '^prefix=${pcfiledir}/' "$ROOT/lib/pkgconfig/executorch.pc"
t "A: pkg-config --modversion is $ET_VERSION" pc_is "$ROOT/lib/pkgconfig" --modversion "$ET_VERSION"
t "A: pkg-config --cflags resolves to the staged include dir" sh -c \
  '[ "$(realpath "$(PKG_CONFIG_PATH=$1 pkg-config --variable=includedir executorch)")" = "$(realpath "$2")" ]' - "$ROOT/lib/pkgconfig" "$ROOT/include"

# Every installed header compiles on its own against the installed tree alone (it includes nothing
# that was not installed: no detail/ header, no generated or build-tree file).
headers_standalone() {
  (cd "$1" && find executorch -type f -name '*.h') | LC_ALL=C sort | {
    bad_hdrs=""
    while IFS= read -r h; do
      if ! printf '#include <%s>\n' "$h" | clean_env $ET_CXX -std=c++17 -Wall -Wextra -Werror \
           -fsyntax-only -I"$1" -x c++ - >"$T/hdr.log" 2>&1; then
        bad_hdrs="$bad_hdrs $h"; sed 's/^/  /' "$T/hdr.log" | head -n 5
      fi
    done
    [ -z "$bad_hdrs" ] || { echo "not self-contained against the installed tree:$bad_hdrs"; false; }
  }
}
t "A: every installed header compiles on its own" headers_standalone "$ROOT/include"

# pkg-config + g++ consumer
t "A: pkg-config consumer builds" pkg_consumer "$ROOT/lib/pkgconfig" "$T/app-pkgconfig"
t "A: pkg-config consumer runs, LD_LIBRARY_PATH unset" run "$T/app-pkgconfig"
if [ "$ET_SHARED" = 1 ]; then
  t "A: pkg-config consumer NEEDs libexecutorch.so.$ET_VERSION_MAJOR" needs_core "$T/app-pkgconfig"
  t "A: pkg-config consumer has its own RUNPATH" has_runpath "$T/app-pkgconfig"
else
  t "A: static pkg-config consumer does not NEED libexecutorch" lacks_core "$T/app-pkgconfig"
fi

# find_package consumer
static=OFF; [ "$ET_SHARED" = 1 ] || static=ON
t "A: CMake consumer configures (find_package twice, subdirectory, variables)" \
  cmake_cfg -S "$SDK/consumer" -B "$T/cmake-consumer" -DCMAKE_PREFIX_PATH="$ROOT" \
  -DEXPECT_PREFIX="$ROOT" -DEXPECT_STATIC=$static -DCMAKE_CXX_COMPILER="$(command -v $ET_CXX)"
t "A: CMake consumer builds (target_link_libraries executorch::runtime)" \
  clean_env cmake --build "$T/cmake-consumer"
t "A: CMake consumer runs, LD_LIBRARY_PATH unset" run "$T/cmake-consumer/app"
if [ "$ET_SHARED" = 1 ]; then
  t "A: CMake consumer NEEDs libexecutorch.so.$ET_VERSION_MAJOR" needs_core "$T/cmake-consumer/app"
  t "A: CMake consumer has a build-tree RUNPATH/RPATH" sh -c 'readelf -d "$1" | grep -Eq "\((RPATH|RUNPATH)\).*$2"' - "$T/cmake-consumer/app" "$ROOT/lib"
else
  t "A: static CMake consumer does not NEED libexecutorch" lacks_core "$T/cmake-consumer/app"
fi

# Version rule, pointer size and components, configure-only.
n=0
probe() { n=$((n + 1)); cmake_cfg -S "$SDK/probe" -B "$T/probe-$n" -DCMAKE_PREFIX_PATH="$ROOT" "$@"; }
t "A: find_package(executorch) without a version" probe
t "A: find_package(executorch 1.0)" probe -DFIND_ARGS=1.0 -DEXPECT_VERSION="$ET_VERSION"
t "A: find_package(executorch 1)" probe -DFIND_ARGS=1
t "A: find_package(executorch $ET_VERSION EXACT)" probe "-DFIND_ARGS=$ET_VERSION;EXACT"
t "A: find_package(executorch 1.0...<2.0)" probe "-DFIND_ARGS=1.0...<2.0"
t_fail "A: find_package(executorch 2.0) fails" 'compatible with requested version "2.0"' probe -DFIND_ARGS=2.0
t_fail "A: find_package(executorch 0.9) fails" 'compatible with requested version "0.9"' probe -DFIND_ARGS=0.9
t_fail "A: find_package(executorch 1.1) fails (newer than ours)" 'compatible with requested version "1.1"' probe -DFIND_ARGS=1.1
t_fail "A: find_package(executorch 0.1...<1.0) fails" 'compatible with requested version range' probe "-DFIND_ARGS=0.1...<1.0"
t_fail "A: a 32-bit consumer is rejected" "$ET_VERSION (64bit)" probe -DFIND_ARGS=1.0 -DFAKE_SIZEOF_VOID_P=4
t "A: COMPONENTS kernels is found (libexecutorch_kernels is installed)" \
  probe "-DFIND_ARGS=1.0;COMPONENTS;kernels"
t_fail "A: an unknown component fails naming it" "unknown component 'bogus'" \
  probe "-DFIND_ARGS=1.0;COMPONENTS;bogus"
t "A: OPTIONAL_COMPONENTS kernels is not an error" probe "-DFIND_ARGS=1.0;OPTIONAL_COMPONENTS;kernels"
t "A: COMPONENTS xnnpack defines executorch::backend_xnnpack" \
  probe "-DFIND_ARGS=1.0;COMPONENTS;xnnpack" -DEXPECT_TARGET=executorch::backend_xnnpack

# Re-install over itself (ln -sfn), then uninstall.
# shellcheck disable=SC2086
t "A: make install again over the same tree" mk $A_VARS install
lib_checks "$ROOT/lib"
# shellcheck disable=SC2086
t "A: make uninstall" mk $A_VARS uninstall
t "A: uninstall left no files" empty_tree "$DEST"
t "A: uninstall removed the directories install created" test ! -e "$DEST"

# ---- B. PREFIX-style, multiarch LIBDIR -------------------------------------------------------------
PFX=$T/prefix
MA=$PFX/lib/x86_64-linux-gnu
B_VARS="DESTDIR= PREFIX=$PFX EXEC_PREFIX=$PFX LIBDIR=$MA INCLUDEDIR=$PFX/include BINDIR=$PFX/bin PKGCONFIGDIR=$MA/pkgconfig CMAKEDIR=$MA/cmake/executorch"
mkdir -p "$PFX/lib" "$PFX/share" && echo keep >"$PFX/share/other-package.txt"
echo "== B: make install $B_VARS"
# shellcheck disable=SC2086
t "B: make install (PREFIX=$PFX LIBDIR=.../lib/x86_64-linux-gnu)" mk $B_VARS install
lib_checks "$MA"
t "B: CMake config: lib is ../.. from lib/<triplet>/cmake/executorch" grep -qx 'set(_executorch_libdir_rel "../..")' "$MA/cmake/executorch/executorch-config.cmake"
t "B: CMake config: include is four hops up" grep -qx 'set(_executorch_includedir_rel "../../../../include")' "$MA/cmake/executorch/executorch-config.cmake"
t "B: find_package resolves lib and include in this layout" probe -DCMAKE_LIBRARY_ARCHITECTURE=x86_64-linux-gnu -DFIND_ARGS=1.0 -DEXPECT_VERSION="$ET_VERSION" -DCMAKE_PREFIX_PATH="$PFX"
t "B: pkg-config consumer builds" pkg_consumer "$MA/pkgconfig" "$T/app-multiarch"
t "B: pkg-config consumer runs, LD_LIBRARY_PATH unset" run "$T/app-multiarch"
# Moved after install: the relative paths still hold.
mv "$PFX" "$T/moved" && ln -s /nonexistent "$PFX"
t "B: moved tree: find_package still resolves" probe -DCMAKE_LIBRARY_ARCHITECTURE=x86_64-linux-gnu -DFIND_ARGS=1.0 -DCMAKE_PREFIX_PATH="$T/moved"
t "B: moved tree: pkg-config still resolves" sh -c \
  '[ -f "$(PKG_CONFIG_PATH=$1 pkg-config --variable=includedir executorch)/executorch/runtime/core/error.h" ]' - "$T/moved/lib/x86_64-linux-gnu/pkgconfig"
rm -f "$PFX" && mv "$T/moved" "$PFX"
# shellcheck disable=SC2086
t "B: make uninstall" mk $B_VARS uninstall
t "B: uninstall left only the other package's file" sh -c '[ "$(find "$1" ! -type d)" = "$1/share/other-package.txt" ]' - "$PFX"
t "B: uninstall removed the directories it created" sh -c '[ ! -e "$1/include" ] && [ ! -e "$1/lib/x86_64-linux-gnu" ]' - "$PFX"
t "B: uninstall kept directories that existed before" test -d "$PFX/lib" -a -d "$PFX/share"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
