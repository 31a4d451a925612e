#!/bin/sh
# run-check.sh RESULT_DIR NAME COMMAND...
# Runs one check, keeps its log, and records "<passed> <failed>" in RESULT_DIR/NAME.result.
# A GoogleTest or pytest binary contributes its own test counts; any other command counts as
# one test. Always exits 0: `make check` sums the results and fails at the end.
dir=$1; name=$2; shift 2
mkdir -p "$dir"
log="$dir/$name.log"
start=$(date +%s)
"$@" >"$log" 2>&1
rc=$?
# The wall time goes into the PASS/FAIL line: `make check` has a time budget, and this shows
# which suite spends it.
secs=$(( $(date +%s) - start ))
passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$log" | tail -n1)
failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\{0,1\}, listed below.*/\1/p' "$log" | tail -n1)
if [ -z "$passed" ]; then
  # pytest summary: "== 3 passed, 1 failed in 0.1s =="
  passed=$(grep -Eo '[0-9]+ passed' "$log" | tail -n1 | cut -d' ' -f1)
  failed=$(grep -Eo '[0-9]+ (failed|error)' "$log" | tail -n1 | cut -d' ' -f1)
fi
if [ -z "$passed" ]; then
  if [ $rc -eq 0 ]; then passed=1; failed=0; else passed=0; failed=1; fi
fi
failed=${failed:-0}
# A non-zero exit with no failures counted (a crash, a build error) is still a failure.
if [ $rc -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "$passed $failed" >"$dir/$name.result"
if [ "$failed" -eq 0 ]; then
  printf '  %-7s %s (%s passed, %ss)\n' PASS "$name" "$passed" "$secs"
else
  printf '  %-7s %s (%s passed, %s failed, %ss; log: %s)\n' FAIL "$name" "$passed" "$failed" "$secs" "$log"
  tail -n 30 "$log" | sed 's/^/    | /'
fi
exit 0
