#!/bin/sh
# et_run --etdump end to end: sh test/tools-tests/et_run_etdump.sh ET_RUN ETDUMP_VERIFY ZOO_DIR WORK_DIR
# The written file verifies against the schema (etdump_verify, itself checked on a broken
# file), holds one run per timed iteration, and its operator counts are those et_run
# --profile prints for the same iterations. Prints "== N passed, N failed ==".
et_run=$1; verify=$2; zoo=$3; work=$4
pass=0; fail=0
rm -rf "$work"; mkdir -p "$work"

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$work/out" ] && sed 's/^/     | /' "$work/out"; }

# The operator table of --profile as "op NAME CALLS" lines, sorted like etdump_verify's.
profile_ops() {
  awk '/^  operator +calls/ {on=1; next} on && /^  all operators/ {on=0} on {print "op " $1 " " $2}' "$1" |
    LC_ALL=C sort
}

for model in mlp cnn; do
  if "$et_run" "$zoo/$model.pte" --etdump "$work/$model.etdp" --iterations 3 --warmup 2 \
       >"$work/out" 2>&1; then
    ok "$model: et_run --etdump runs"
  else
    bad "$model: et_run --etdump failed"; continue
  fi
  grep -qF "etdump: wrote $work/$model.etdp" "$work/out" && ok "$model: says where it wrote" ||
    bad "$model: no 'etdump: wrote' line"
  if "$verify" "$work/$model.etdp" >"$work/$model.summary" 2>"$work/out"; then
    ok "$model: the file verifies against the schema"
  else
    bad "$model: the file does not verify"; continue
  fi
  grep -qx "runs 3" "$work/$model.summary" && ok "$model: one run per timed iteration (warmup dropped)" ||
    bad "$model: run count: $(head -1 "$work/$model.summary")"
  grep -qx "method Method::execute 3" "$work/$model.summary" && ok "$model: a Method::execute event per run" ||
    bad "$model: Method::execute events"
  "$et_run" "$zoo/$model.pte" --profile --iterations 3 --warmup 2 >"$work/$model.profile" 2>&1
  profile_ops "$work/$model.profile" >"$work/$model.profile.ops"
  grep '^op ' "$work/$model.summary" | LC_ALL=C sort >"$work/$model.etdump.ops"
  if [ -s "$work/$model.profile.ops" ] && cmp -s "$work/$model.profile.ops" "$work/$model.etdump.ops"; then
    ok "$model: operator names and counts equal --profile's"
  else
    diff "$work/$model.profile.ops" "$work/$model.etdump.ops" >"$work/out"
    bad "$model: operators differ from --profile (< profile, > etdump)"
  fi
done

# An XNNPACK-delegated program: the dump still verifies and holds the backend's per-node events.
if "$et_run" "$zoo/cnn_xnnpack.pte" --etdump "$work/xnn.etdp" --iterations 2 --warmup 0 >"$work/out" 2>&1 &&
   "$verify" "$work/xnn.etdp" >"$work/xnn.summary" 2>"$work/out"; then
  ok "cnn_xnnpack: et_run --etdump writes a file that verifies"
  grep -q "^delegate XNNConv2d [1-9]" "$work/xnn.summary" &&
    ok "cnn_xnnpack: per-node XnnpackBackend events" ||
    { cp "$work/xnn.summary" "$work/out"; bad "cnn_xnnpack: no per-node XnnpackBackend events"; }
else
  bad "cnn_xnnpack: et_run --etdump"
fi

# The verifier rejects a truncated file (so a pass above means something).
head -c 100 "$work/mlp.etdp" >"$work/truncated.etdp"
if "$verify" "$work/truncated.etdp" >"$work/out" 2>&1; then
  bad "a truncated ETDump verified"
else
  ok "a truncated ETDump does not verify"
fi

# A debug buffer: operator outputs are logged and the buffer is written beside the dump.
if "$et_run" "$zoo/mlp.pte" --etdump "$work/dbg.etdp" --debug-buffer-size 1M >"$work/out" 2>&1 &&
   "$verify" "$work/dbg.etdp" >"$work/dbg.summary" 2>&1; then
  n=$(sed -n 's/^debug //p' "$work/dbg.summary")
  [ "${n:-0}" -gt 0 ] && ok "debug buffer: $n values logged" || bad "debug buffer: no values logged"
  [ -s "$work/dbg.etdp.debug" ] && ok "debug buffer written to FILE.debug" || bad "no FILE.debug"
else
  bad "et_run --debug-buffer-size 1M"
fi
# Too small a debug buffer: the run still succeeds, values that do not fit are dropped.
if "$et_run" "$zoo/mlp.pte" --etdump "$work/small.etdp" --debug-buffer-size 100 >"$work/out" 2>&1 &&
   "$verify" "$work/small.etdp" >/dev/null 2>&1; then
  grep -qF "no room" "$work/out" && ok "a full debug buffer is reported, the run completes" ||
    bad "a full debug buffer: no message"
else
  bad "a full debug buffer failed the run"
fi

# Usage errors.
"$et_run" "$zoo/mlp.pte" --profile --etdump "$work/x.etdp" >"$work/out" 2>&1
[ $? -eq 2 ] && ok "--profile with --etdump is a usage error" || bad "--profile with --etdump"
"$et_run" "$zoo/mlp.pte" --debug-buffer-size 1K >"$work/out" 2>&1
[ $? -eq 2 ] && ok "--debug-buffer-size without --etdump is a usage error" || bad "--debug-buffer-size alone"
"$et_run" "$zoo/mlp.pte" --etdump "$work/no/such/dir/x.etdp" >"$work/out" 2>&1
[ $? -eq 1 ] && ok "an unwritable --etdump path fails with status 1" || bad "unwritable --etdump path"

echo "== $pass passed, $fail failed =="
[ $fail -eq 0 ]
