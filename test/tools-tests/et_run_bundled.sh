#!/bin/sh
# et_run --bundled end to end: sh test/tools-tests/et_run_bundled.sh ET_RUN BUNDLED_DIR ZOO_DIR WORK
# Every fixture of BUNDLED_DIR passes except mlp_wrong (case 1 fails with its error printed);
# tolerances, --method and broken files. Prints "== N passed, N failed ==".
et_run=$1; fixtures=$2; zoo=$3; work=$4
pass=0; fail=0
rm -rf "$work"; mkdir -p "$work"

. "$(dirname "$0")/check_lib.sh"

lacks() {
  if grep -qF -- "$2" "$work/out"; then bad "$1: '$2' in the output"; else ok "$1"; fi
}

# --- every case of every correct fixture passes
for f in "$fixtures"/*.bpte; do
  n=$(basename "$f" .bpte)
  [ "$n" = mlp_wrong ] && continue
  if run "$n" 0 --bundled "$f"; then
    has "$n: every case passes" " 0 failed"
    lacks "$n: no failure line" "FAIL"
  fi
done
if run "multi_method cases" 0 --bundled "$fixtures/multi_method.bpte"; then
  has "multi_method: project's cases" "method 'project': 3 test cases"
  has "multi_method: per case line" "  case 2: pass"
fi

# --- the wrong expected output: that case fails with its error, the others pass
if run mlp_wrong 1 --bundled "$fixtures/mlp_wrong.bpte"; then
  has "mlp_wrong: case 0 passes" "  case 0: pass"
  has "mlp_wrong: case 1 fails with its error" "  case 1: FAIL: max abs error 0.5, max rel error"
  has "mlp_wrong: summary" "2 passed, 1 failed"
fi
if run "mlp_wrong with atol 1" 0 --bundled "$fixtures/mlp_wrong.bpte" --atol 1; then
  has "a loose tolerance accepts it" "3 passed, 0 failed"
fi

# --- --method picks one suite
if run "--method project" 0 --bundled "$fixtures/multi_method.bpte" --method project; then
  has "--method: that suite" "method 'project'"
  lacks "--method: not the others" "method 'forward'"
fi
if run "--method unknown" 1 --bundled "$fixtures/multi_method.bpte" --method nope; then
  has "--method unknown named" "has no test suite for method 'nope'"
fi

# --- broken and wrong files
head -c 1000 "$fixtures/mlp.bpte" >"$work/truncated.bpte"
if run truncated 1 --bundled "$work/truncated.bpte"; then
  has "truncated: InvalidProgram" "Error::InvalidProgram"
fi
if run "a .pte" 1 --bundled "$zoo/mlp.pte"; then
  has "a .pte: identifier named" "identifier 'ET12' is not 'BP08'"
  has "a .pte: NotSupported" "Error::NotSupported"
fi
if run missing 1 --bundled "$work/none.bpte"; then
  has "missing file named" "cannot read '$work/none.bpte'"
fi

# --- usage errors
if run "bad rtol" 2 --bundled "$fixtures/mlp.bpte" --rtol -1; then
  has "bad rtol named" "--rtol: '-1' is not a number >= 0"
fi
if run "model and --bundled" 2 "$zoo/mlp.pte" --bundled "$fixtures/mlp.bpte"; then
  has "model and --bundled refused" "no model file is needed"
fi

echo "== $pass passed, $fail failed =="
[ $fail -eq 0 ]
