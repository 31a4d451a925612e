#!/bin/sh
# et_generate end-to-end checks: sh test/tools-tests/et_generate.sh ET_GENERATE LLM_DIR WORK_DIR
# LLM_DIR is test/fixtures/llm: its manifest.json holds, per program, a prompt and the greedy
# continuation upstream's runtime produced; et_generate must print the same tokens.
# Prints "== N passed, N failed ==" (counted by test/tools/run-check.sh).
gen=$1; dir=$2; work=$3
pass=0; fail=0
rm -rf "$work"; mkdir -p "$work"

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; sed 's/^/     | /' "$work/out" "$work/err"; }

# run NAME EXPECTED_STATUS(0|1|2) ARGS...: stdout in $work/out, stderr in $work/err.
run() {
  # (sh has no locals: these names must not clash with the loop's $name)
  run_label=$1; run_want=$2; shift 2
  "$gen" "$@" >"$work/out" 2>"$work/err"
  rc=$?
  if [ $rc -ne "$run_want" ]; then bad "$run_label: exit $rc, wanted $run_want"; return 1; fi
  return 0
}
has_err() {
  if grep -qF -- "$2" "$work/err"; then ok "$1"; else bad "$1: no '$2' on stderr"; fi
}

# name|file|prompt (comma separated)|expected tokens (space separated), one line per program
python3 - "$dir/manifest.json" >"$work/cases" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["programs"]:
    print("%s|%s|%s|%s" % (p["name"], p["file"], ",".join(map(str, p["prompt"])),
                           " ".join(map(str, p["expected_tokens_upstream"]))))
PY
[ -s "$work/cases" ] || { fail=$((fail + 1)); echo "FAIL no programs in $dir/manifest.json"; }

while IFS='|' read -r name file prompt want; do
  n=$(echo "$want" | wc -w)
  if run "$name greedy" 0 "$dir/$file" --prompt "$prompt" --max-new-tokens "$n" --no-stop; then
    got=$(cat "$work/out")
    if [ "$got" = "$want" ]; then ok "$name: greedy continuation matches upstream's runtime"
    else bad "$name: got '$got', upstream gave '$want'"; fi
    has_err "$name reports decode speed" "tokens/s"
    has_err "$name stop reason" "stop:    max_new_tokens"
  fi
  stop=$(echo "$want" | cut -d' ' -f3)
  expect=$(echo "$want" | awk -v s="$stop" '{ for (i = 1; i <= NF; i++) { printf "%s%s", (i > 1 ? " " : ""), $i; if ($i == s) exit } }')
  if run "$name stop" 0 "$dir/$file" --prompt "$prompt" --max-new-tokens "$n" --stop "$stop"; then
    if [ "$(cat "$work/out")" = "$expect" ]; then ok "$name: stops after --stop $stop"
    else bad "$name: --stop $stop gave '$(cat "$work/out")', wanted '$expect'"; fi
    has_err "$name stop reason is the token" "stop:    stop_token"
  fi
  run "$name seeded a" 0 "$dir/$file" --prompt "$prompt" --max-new-tokens 8 --no-stop \
    --temperature 1.5 --top-p 0.9 --seed 11 && cp "$work/out" "$work/seed_a"
  if run "$name seeded b" 0 "$dir/$file" --prompt "$prompt" --max-new-tokens 8 --no-stop \
    --temperature 1.5 --top-p 0.9 --seed 11; then
    if cmp -s "$work/out" "$work/seed_a"; then ok "$name: the same seed samples the same tokens"
    else bad "$name: seed 11 sampled differently twice"; fi
  fi
  long=$(python3 -c "print(','.join(['5'] * 65))")
  run "$name long prompt" 1 "$dir/$file" --prompt "$long" && has_err "$name refuses a prompt over max_seq_len" "the model holds at most"
done <"$work/cases"

# usage errors: exit 2 with a message naming the problem
run "no prompt" 2 "$dir/$(head -n1 "$work/cases" | cut -d'|' -f2)" && has_err "no prompt" "--prompt are required"
run "bad prompt" 2 x.pte --prompt 1,a && has_err "bad prompt" "is not a list of token ids"
run "bad top-p" 2 x.pte --prompt 1 --top-p 1.5 && has_err "bad top-p" "must be in (0, 1]"
run "bad temperature" 2 x.pte --prompt 1 --temperature -1 && has_err "bad temperature" ">= 0"
run "unknown option" 2 x.pte --prompt 1 --frobnicate && has_err "unknown option" "unknown option '--frobnicate'"
# a program that is not a KV-cache LLM is refused with a message, not a crash
run "not an llm" 1 test/fixtures/zoo/mlp.pte --prompt 1 && has_err "not an llm" "this tool needs a KV-cache"
run "missing file" 1 "$work/nope.pte" --prompt 1 && has_err "missing file" "cannot read method"

echo "== $pass passed, $fail failed =="
[ $fail -eq 0 ]
