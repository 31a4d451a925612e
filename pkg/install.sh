#!/bin/sh
# pkg/install.sh install|uninstall: what `make install` and `make uninstall` do (mk/install.mk
# passes everything through the environment; the variables are listed below).
#
# install writes, under $DESTDIR:
#   $LIBDIR         each shared library as lib<x>.so.$VERSION + lib<x>.so.$VERSION_MAJOR +
#                   lib<x>.so (an ln -sfn chain), and each static archive
#   $BINDIR         the programs
#   $INCLUDEDIR     executorch/runtime/... and executorch/extension/... (mode 0644)
#   $PKGCONFIGDIR   executorch.pc, from $PC_IN
#   $CMAKEDIR       executorch-config.cmake and executorch-config-version.cmake
# Relocation: the .pc and the CMake files hold no absolute path. The paths from their own
# directory to LIBDIR and INCLUDEDIR are computed here (realpath --relative-to, on the final
# paths without DESTDIR) and written into them: ${pcfiledir}/..-style in the .pc, and the marked
# set() lines of the CMake config (the checked-in values are the defaults for
# lib/cmake/executorch). So DESTDIR staging and moving the installed tree both keep working.
#
# Before writing anything, install records the directories it is about to create and the files
# it is about to write in $RECORD (merged with an earlier record for the same destination), so
# uninstall also undoes a partial install. uninstall removes the recorded files and then the
# recorded directories if they are empty; without a record, the files the same variables name
# and the empty directories under $INCLUDEDIR/executorch and $CMAKEDIR: never a directory it
# cannot know it created.
#
# Environment: DESTDIR PREFIX LIBDIR INCLUDEDIR BINDIR PKGCONFIGDIR CMAKEDIR VERSION
# VERSION_MAJOR RECORD; SHARED_LIBS (real files lib<x>.so.$VERSION) STATIC_LIBS PROGRAMS
# HEADERS (source paths: runtime/<x>/... installs as executorch/runtime/<x>/...,
# runtime/extension/<x> as executorch/extension/<x>, runtime/devtools/<x> as executorch/devtools/<x>); PC_IN PC_LIBS PC_NOTE CMAKE_CONFIG
# CMAKE_VERSION; CXX CPPFLAGS CXXFLAGS (to ask the compiler the target's pointer size).
set -eu
: "${PREFIX:?}" "${LIBDIR:?}" "${INCLUDEDIR:?}" "${BINDIR:?}" "${PKGCONFIGDIR:?}" "${CMAKEDIR:?}"
: "${VERSION:?}" "${VERSION_MAJOR:?}" "${RECORD:?}"
DESTDIR=${DESTDIR:-}
SHARED_LIBS=${SHARED_LIBS:-} STATIC_LIBS=${STATIC_LIBS:-} PROGRAMS=${PROGRAMS:-} HEADERS=${HEADERS:-}

say() { [ "${V:-0}" = 1 ] || printf '  %-7s %s\n' "$1" "$2"; }
rel() { realpath -m -s --relative-to="$1" "$2"; }
header_dest() {
  case $1 in
    runtime/extension/*) echo "extension/${1#runtime/extension/}" ;;
    runtime/devtools/*) echo "devtools/${1#runtime/devtools/}" ;;
    *) echo "$1" ;;
  esac
}

# Every file install writes, one per line, with DESTDIR.
files() {
  for l in $SHARED_LIBS; do
    real=${l##*/}
    echo "$DESTDIR$LIBDIR/$real"
    echo "$DESTDIR$LIBDIR/${real%.$VERSION}.$VERSION_MAJOR"
    echo "$DESTDIR$LIBDIR/${real%.$VERSION}"
  done
  for l in $STATIC_LIBS; do echo "$DESTDIR$LIBDIR/${l##*/}"; done
  for p in $PROGRAMS; do echo "$DESTDIR$BINDIR/${p##*/}"; done
  for h in $HEADERS; do echo "$DESTDIR$INCLUDEDIR/executorch/$(header_dest "$h")"; done
  echo "$DESTDIR$PKGCONFIGDIR/executorch.pc"
  echo "$DESTDIR$CMAKEDIR/executorch-config.cmake"
  echo "$DESTDIR$CMAKEDIR/executorch-config-version.cmake"
}

# Write the record first: the directories about to be created (each missing ancestor), the
# files about to be written, merged with an earlier record.
write_record() {
  { [ ! -f "$RECORD" ] || cat "$RECORD"
    files | while IFS= read -r f; do
      d=$(dirname "$f")
      while [ ! -d "$d" ]; do echo "d $d"; d=$(dirname "$d"); done
      echo "f $f"
    done; } | LC_ALL=C sort -u >"$RECORD.tmp"
  mv -f "$RECORD.tmp" "$RECORD"
}

# sed each marked line of a checked-in file into place, and fail if a marked line is missing
# (the file changed and the rewrite would silently not happen).
rewrite() {
  src=$1 out=$2; shift 2
  sed "$@" "$src" >"$out.tmp"
}
require_lines() {
  out=$1 src=$2; shift 2
  for want in "$@"; do
    grep -qxF "set($want)" "$out.tmp" ||
      { echo "$src: no line to rewrite into set($want)" >&2; rm -f "$out.tmp"; exit 1; }
  done
  chmod 0644 "$out.tmp"
  mv -f "$out.tmp" "$out"
}

install_pc() {
  P=$(realpath -m -s "$PREFIX") L=$(realpath -m -s "$LIBDIR")
  I=$(realpath -m -s "$INCLUDEDIR") PC=$(realpath -m -s "$PKGCONFIGDIR")
  under() { case "$2" in "$1"|"$1"/*) return 0 ;; *) return 1 ;; esac; }
  pcpath() {
    if under "$P" "$1"; then echo '${prefix}'/"$(rel "$P" "$1")"
    else echo '${pcfiledir}'/"$(rel "$PC" "$1")"; fi
  }
  out=$DESTDIR$PKGCONFIGDIR/executorch.pc
  say GEN "$out"
  sed -e "s|@PC_PREFIX@|\${pcfiledir}/$(rel "$PC" "$P")|" \
      -e "s|@PC_LIBDIR@|$(pcpath "$L")|" -e "s|@PC_INCLUDEDIR@|$(pcpath "$I")|" \
      -e "s|@PC_LIBS@|$PC_LIBS|" -e "s|@PC_NOTE@|$PC_NOTE|" \
      -e "s|@VERSION@|$VERSION|" "$PC_IN" >"$out.tmp"
  chmod 0644 "$out.tmp"
  mv -f "$out.tmp" "$out"
}

install_cmake() {
  CM=$(realpath -m -s "$CMAKEDIR")
  lib=$(rel "$CM" "$(realpath -m -s "$LIBDIR")")
  inc=$(rel "$CM" "$(realpath -m -s "$INCLUDEDIR")")
  ptr=$(printf '__SIZEOF_POINTER__\n' | ${CXX:-c++} ${CPPFLAGS:-} ${CXXFLAGS:-} -E -P -x c++ - | tr -d ' \n')
  out=$DESTDIR$CMAKEDIR/executorch-config.cmake
  say GEN "$DESTDIR$CMAKEDIR/executorch-config{,-version}.cmake"
  rewrite "$CMAKE_CONFIG" "$out" \
    -e "s|^set(_executorch_libdir_rel \".*\")\$|set(_executorch_libdir_rel \"$lib\")|" \
    -e "s|^set(_executorch_includedir_rel \".*\")\$|set(_executorch_includedir_rel \"$inc\")|" \
    -e "s|^set(_executorch_soversion \".*\")\$|set(_executorch_soversion \"$VERSION_MAJOR\")|"
  require_lines "$out" "$CMAKE_CONFIG" "_executorch_libdir_rel \"$lib\"" \
    "_executorch_includedir_rel \"$inc\"" "_executorch_soversion \"$VERSION_MAJOR\""
  out=$DESTDIR$CMAKEDIR/executorch-config-version.cmake
  rewrite "$CMAKE_VERSION" "$out" \
    -e "s|^set(PACKAGE_VERSION \".*\")\$|set(PACKAGE_VERSION \"$VERSION\")|" \
    -e "s|^set(_executorch_sizeof_void_p \".*\")\$|set(_executorch_sizeof_void_p \"$ptr\")|"
  require_lines "$out" "$CMAKE_VERSION" "PACKAGE_VERSION \"$VERSION\"" \
    "_executorch_sizeof_void_p \"$ptr\""
}

do_install() {
  say INSTALL "$DESTDIR$PREFIX"
  mkdir -p "$(dirname "$RECORD")"
  write_record
  # New directories 0755 (parents first), whatever the umask.
  sed -n 's/^d //p' "$RECORD" | LC_ALL=C sort | while IFS= read -r d; do
    [ -d "$d" ] || mkdir -m 0755 "$d"
  done
  for l in $SHARED_LIBS; do
    real=${l##*/} soname=${real%.$VERSION}.$VERSION_MAJOR dev=${real%.$VERSION}
    install -m 0755 "$l" "$DESTDIR$LIBDIR/$real"
    ln -sfn "$real" "$DESTDIR$LIBDIR/$soname"
    ln -sfn "$soname" "$DESTDIR$LIBDIR/$dev"
  done
  for l in $STATIC_LIBS; do install -m 0644 "$l" "$DESTDIR$LIBDIR/"; done
  for p in $PROGRAMS; do install -m 0755 "$p" "$DESTDIR$BINDIR/"; done
  n=0
  for h in $HEADERS; do
    dest=$DESTDIR$INCLUDEDIR/executorch/$(header_dest "$h")
    install -m 0644 "$h" "$dest"
    n=$((n + 1))
  done
  say INSTALL "$DESTDIR$INCLUDEDIR/executorch ($n headers)"
  install_pc
  install_cmake
}

do_uninstall() {
  say UNINST "$DESTDIR$PREFIX"
  { files; [ ! -f "$RECORD" ] || sed -n 's/^f //p' "$RECORD"; } | LC_ALL=C sort -u |
    while IFS= read -r f; do rm -f "$f"; done
  if [ -f "$RECORD" ]; then
    sed -n 's/^d //p' "$RECORD" | LC_ALL=C sort -r | while IFS= read -r d; do
      [ ! -d "$d" ] || rmdir "$d" 2>/dev/null || :
    done
  else
    d=$DESTDIR$INCLUDEDIR/executorch
    [ ! -d "$d" ] || find "$d" -depth -type d -empty -delete
    case $CMAKEDIR in */executorch) rmdir "$DESTDIR$CMAKEDIR" 2>/dev/null || : ;; esac
  fi
  rm -f "$RECORD"
}

case ${1:-} in
  install) do_install ;;
  uninstall) do_uninstall ;;
  *) echo "usage: install.sh install|uninstall (environment: see the header)" >&2; exit 2 ;;
esac
