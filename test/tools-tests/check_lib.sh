# Shared by the tool checks (sourced): counters and verdicts over the last output, $work/out.
# The caller sets et_run=TOOL work=DIR and pass=0 fail=0, and ends with "== $pass passed, $fail failed ==".
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; sed 's/^/     | /' "$work/out"; }
# has NAME TEXT: the last output contains the fixed string TEXT.
has() {
  if grep -qF -- "$2" "$work/out"; then ok "$1"; else bad "$1: no '$2' in the output"; fi
}
# run NAME EXPECTED_STATUS(0|nonzero) ARGS...: runs et_run, output in $work/out.
run() {
  name=$1; want=$2; shift 2
  "$et_run" "$@" >"$work/out" 2>&1
  rc=$?
  if [ "$want" = 0 ] && [ $rc -ne 0 ]; then bad "$name: exit $rc, wanted 0"; return 1; fi
  if [ "$want" != 0 ] && [ $rc -eq 0 ]; then bad "$name: exit 0, wanted non-zero"; return 1; fi
  if [ $rc -gt 1 ] && [ "$want" != 2 ]; then bad "$name: exit $rc (crash?)"; return 1; fi
  return 0
}
