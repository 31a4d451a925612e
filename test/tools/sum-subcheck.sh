#!/bin/sh
# sum-subcheck.sh CHECK_DIR NAME WHAT START_SECS SUB_DIR CHECK...
# Sums the results of a sub-make's checks (SUB_DIR/<check>.result, each "<passed> <failed>",
# written by run-check.sh) into CHECK_DIR/NAME.result and prints the suite's PASS/FAIL line;
# WHAT says how the checks ran (e.g. "under TSan in build/tsan"). A check with no result
# (its build failed) counts as one failure. On failure it shows the
# sanitizer reports of the groups' logs and the tail of the sub-make's log CHECK_DIR/NAME.log.
# Used by mk/test-sanitize.mk and mk/test-tsan.mk. Always exits 0.
dir=$1; name=$2; what=$3; start=$4; sub=$5; shift 5
secs=$(( $(date +%s) - start ))
tp=0; tf=0; missing=
for c in "$@"; do
  r=$sub/$c.result
  if [ -f "$r" ]; then read -r p f <"$r"; else p=0; f=1; missing="$missing $c"; fi
  tp=$((tp + p)); tf=$((tf + f))
done
echo "$tp $tf" >"$dir/$name.result"
if [ $tf -eq 0 ]; then
  printf '  %-7s %s (%s passed; %s %s, %ss)\n' PASS "$name" $tp "$*" "$what" $secs
  exit 0
fi
printf '  %-7s %s (%s passed, %s failed; log: %s)\n' FAIL "$name" $tp $tf "$dir/$name.log"
[ -z "$missing" ] || echo "    | no result (build failed?):$missing"
grep -E '^  (PASS|FAIL) ' "$dir/$name.log" | sed 's/^/    | /'
grep -h -m 5 -A 12 -E '(WARNING|ERROR): [A-Za-z]+Sanitizer|runtime error:' "$sub"/*.log 2>/dev/null |
  sed 's/^/    | /'
tail -n 30 "$dir/$name.log" | sed 's/^/    | /'
exit 0
