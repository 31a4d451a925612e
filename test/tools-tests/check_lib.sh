# Shared by the tool checks (sourced): counters and verdicts over the last output, $work/out.
# The caller sets work=DIR and pass=0 fail=0, and ends with "== $pass passed, $fail failed ==".
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; sed 's/^/     | /' "$work/out"; }
# has NAME TEXT: the last output contains the fixed string TEXT.
has() {
  if grep -qF -- "$2" "$work/out"; then ok "$1"; else bad "$1: no '$2' in the output"; fi
}
