#!/bin/sh
# replay.sh FUZZER DIR: runs FUZZER once on every file in DIR (libFuzzer executes the files it
# is given and exits) and prints one line per input, then "N passed, N failed" (the count
# test/tools/run-check.sh reads). An empty or missing DIR has nothing to replay and passes.
fuzzer=$1; dir=$2
passed=0; failed=0
for f in "$dir"/*; do
  [ -f "$f" ] || continue
  if out=$("$fuzzer" -runs=1 "$f" 2>&1); then
    passed=$((passed + 1)); echo "PASS $f"
  else
    failed=$((failed + 1)); echo "FAIL $f"
    echo "$out" | grep -E 'ERROR: |SUMMARY: |runtime error: |#[0-9] ' | head -n 12 | cut -c1-200 | sed 's/^/    /'
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
