#!/bin/sh
# check-exports.sh LIB GOLDEN [--update]
# Compares the library's dynamic exports (name@@VERSION, sorted) with the checked-in golden
# list, and checks that every export is an executorch:: symbol (or a C PAL hook) at a
# versioned node. --update rewrites the golden list on purpose.
set -u
lib=$1; golden=$2
current=$(mktemp); trap 'rm -f "$current"' EXIT
# Type "A" is the version node's own absolute symbol, emitted by some linkers only.
nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | LC_ALL=C sort -u >"$current"
if [ "${3:-}" = --update ]; then cp "$current" "$golden"; echo "updated $golden"; exit 0; fi
status=0
unversioned=$(grep -v '@@\{0,1\}EXECUTORCH_1\.0$' "$current" || true)
if [ -n "$unversioned" ]; then
  echo "exports without the EXECUTORCH_1.0 version node:"; echo "$unversioned"; status=1
fi
foreign=$(sed 's/@.*//' "$current" | c++filt | \
  grep -Ev '^((vtable|typeinfo|typeinfo name|VTT) for )?executorch::|^et_pal_' || true)
if [ -n "$foreign" ]; then
  echo "exports outside executorch:: and the PAL hooks:"; echo "$foreign"; status=1
fi
if ! diff -u "$golden" "$current"; then
  echo "the export list changed; if on purpose, run: make update-exports"; status=1
fi
[ $status -eq 0 ] && echo "$(wc -l <"$current") exports match $golden"
exit $status
