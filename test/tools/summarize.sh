#!/bin/sh
# summarize.sh RESULT_DIR NAME...: sums the named checks' results into the closing line
# "N passed, N failed" and exits non-zero when anything failed or did not run.
dir=$1; shift
total_pass=0; total_fail=0
for name in "$@"; do
  if [ -f "$dir/$name.result" ]; then
    read -r p f <"$dir/$name.result"
  else
    echo "  MISSING $name (no result recorded)"; p=0; f=1
  fi
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
