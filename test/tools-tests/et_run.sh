#!/bin/sh
# et_run end-to-end checks: sh test/tools-tests/et_run.sh ET_RUN ZOO_DIR WORK_DIR
# Runs the tool on zoo fixtures and on broken inputs and checks what it prints and its exit
# status. Prints "== N passed, N failed ==" (counted by test/tools/run-check.sh).
et_run=$1; zoo=$2; work=$3
pass=0; fail=0
rm -rf "$work"; mkdir -p "$work"

. "$(dirname "$0")/check_lib.sh"

# --- a fixture: methods, inputs, outputs with dtype and shape, times
if run identity 0 "$zoo/identity.pte" --iterations 3; then
  has "identity lists forward" "forward: 2 inputs, 2 outputs"
  has "identity input meta" "input 0: Tensor Float [2, 3]"
  has "identity output meta" "output 1: Tensor Float [4]"
  has "identity output values" "output 0: Tensor Float [2, 3] = [1, 1, 1, 1, 1, 1]"
  has "identity execute time" "execute: median"
fi

# --- every method listed; a named method runs; --output-dir writes .npy
if run multi_method 0 "$zoo/multi_method.pte" --method scale --output-dir "$work/out_scale"; then
  has "multi_method lists project" "project: 1 input, 1 output"
  has "multi_method runs scale" "running 'scale' on ones"
  has "multi_method output" "output 0: Tensor Float [2, 4] = ["
  if [ -f "$work/out_scale/output_0.npy" ] &&
     head -c 6 "$work/out_scale/output_0.npy" | grep -q NUMPY; then
    ok "output written as .npy"
  else
    bad "output written as .npy: $work/out_scale/output_0.npy missing"
  fi
fi

# --- an .npy written by the tool feeds back as an input of matching dtype and shape
cp "$work/out_scale/output_0.npy" "$work/f32_2x4.npy" 2>/dev/null
if run "npy input" 0 "$zoo/multi_method.pte" --method scale --input "$work/f32_2x4.npy"; then
  has "npy input used" "running 'scale' on .npy files"
fi

# --- every timed iteration runs on the given inputs: cnn's memory plan reuses its input's
# buffer once the input is dead, so the tool sets the inputs again before each execution
cnn_in="$zoo/data/cnn/forward.call0.in0.npy"
if run "iterations 1" 0 "$zoo/cnn.pte" --input "$cnn_in" --output-dir "$work/iter1" &&
   run "iterations 3" 0 "$zoo/cnn.pte" --input "$cnn_in" --iterations 3 --warmup 1 \
     --output-dir "$work/iter3"; then
  if cmp -s "$work/iter1/output_0.npy" "$work/iter3/output_0.npy"; then
    ok "the last of several iterations gives the first one's output"
  else
    bad "the last of several iterations gives the first one's output"
  fi
fi

# --- Half dtype end to end
if run add_f16 0 "$zoo/add_f16.pte"; then
  has "add_f16 output" "output 0: Tensor Half [2, 3] = [2, 2, 2, 2, 2, 2]"
fi

# --- --profile prints a per-operator table
if run profile 0 "$zoo/multi_method.pte" --method scale --iterations 5 --profile; then
  has "profile header" "operator"
  has "profile row" "aten::mul.out"
fi

# --- load-time preparation: on by default (mlp's three permuted weights are folded), off with
# --no-prepare, and the printed outputs are the same
if run prepare 0 "$zoo/mlp.pte" --profile --output-dir "$work/prep_on"; then
  has "prepare folds the permutes" "prepared at load: 3 instructions folded or fused"
  if run no-prepare 0 "$zoo/mlp.pte" --profile --no-prepare --output-dir "$work/prep_off"; then
    has "no-prepare folds nothing" "prepared at load: 0 instructions folded or fused; 0 extra bytes"
  fi
fi
# --- a convolution's relu runs in its epilogue (cnn: its first conv -> relu pair fuses, besides
# the folded weight permute)
if run fuse 0 "$zoo/cnn.pte" --profile; then
  has "relu fused into the convolution" "prepared at load: 2 instructions folded or fused"
  if run no-fuse 0 "$zoo/cnn.pte" --profile --no-prepare; then
    has "no-prepare runs both relus" "aten::relu.out                           2"
    if cmp -s "$work/prep_on/output_0.npy" "$work/prep_off/output_0.npy"; then
      ok "prepare on and off give identical outputs"
    else
      bad "prepare on and off give identical outputs"
    fi
  fi
fi

# --- conv_bn_act: batch norms fold into their convolutions and the decomposed hardswish /
# hardsigmoid (add, clamp, div) and SiLUs (sigmoid, mul) run in the conv and GEMM epilogues; the
# memory report shows the bytes preparation added
lacks() {  # lacks NAME TEXT: the last output does not contain TEXT
  if grep -qF -- "$2" "$work/out"; then bad "$1: '$2' in the output"; else ok "$1"; fi
}
if run fold 0 "$zoo/conv_bn_act.pte" --profile; then
  lacks "hardswish / hardsigmoid fused (no div runs)" "aten::div.out"
  lacks "hard activations fused (no clamp runs)" "aten::clamp.out"
  # (the operator column is as wide as the longest name that ran)
  if grep -qE "aten::sigmoid\.out +1 " "$work/out"; then
    ok "one sigmoid left (the squeeze-excitation gate)"
  else
    bad "one sigmoid left (the squeeze-excitation gate)"
  fi
  # The fourth's output reuses its convolution's input storage: the convolution keeps its own
  # output and the batch norm's reader reads that.
  lacks "all four batch norms folded" "aten::_native_batch_norm_legit_no_training.out"
  has "memory report" "planned buffers:"
  if grep -q "prepared at load: *[1-9][0-9]* bytes" "$work/out"; then
    ok "memory report counts the prepared bytes"
  else
    bad "memory report counts the prepared bytes"
  fi
  if run no-fold 0 "$zoo/conv_bn_act.pte" --profile --no-prepare; then
    has "no-prepare runs every batch norm" \
      "aten::_native_batch_norm_legit_no_training.out        4"
    has "no-prepare runs the divs" "aten::div.out"
    has "no-prepare prepared nothing" "prepared at load:            0 bytes (--no-prepare)"
  fi
fi

# --- errors: runtime error name and message, non-zero exit
if run "missing file" 1 "$work/no-such-file.pte"; then
  has "missing file error" "Error::AccessFailed (0x22)"
fi
# Not a program: the first 64 bytes of a fixture followed by garbage identifier.
{ head -c 4 "$zoo/identity.pte"; printf 'XXXX'; tail -c +9 "$zoo/identity.pte"; } >"$work/corrupt.pte"
if run "corrupt file" 1 "$work/corrupt.pte"; then
  has "corrupt file error" "Error::InvalidProgram (0x23)"
fi
head -c 40 "$zoo/identity.pte" >"$work/short.pte"
if run "truncated file" 1 "$work/short.pte"; then
  has "truncated file error" "loading program"
fi
if run "unknown method" 1 "$zoo/multi_method.pte" --method nope; then
  has "unknown method error" "Error::InvalidArgument (0x12)"
  has "unknown method lists methods" "forward, project, scale"
fi
if run "usage error" 2 "$zoo/identity.pte" --iterations zero; then
  has "usage error message" "--iterations"
fi

# --- --input with the wrong dtype or shape (hand-written .npy files)
npy() { # npy FILE DESCR SHAPE NBYTES: a v1 .npy of zero bytes
  hdr="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
  pad=$(( (64 - (10 + ${#hdr} + 1) % 64) % 64 ))
  len=$(( ${#hdr} + pad + 1 ))
  { printf '\223NUMPY\001\000'; printf "\\$(printf %03o $((len % 256)))\\$(printf %03o $((len / 256)))";
    printf '%s' "$hdr"; printf "%${pad}s\n" ''; head -c "$4" /dev/zero; } >"$1"
}
npy "$work/f64_2x4.npy" '<f8' '(2, 4)' 64
if run "wrong dtype" 1 "$zoo/multi_method.pte" --method scale --input "$work/f64_2x4.npy"; then
  has "wrong dtype message" "has dtype Double (<f8), method 'scale' expects Float [2, 4]"
fi
npy "$work/f32_3x4.npy" '<f4' '(3, 4)' 48
if run "wrong shape" 1 "$zoo/multi_method.pte" --method scale --input "$work/f32_3x4.npy"; then
  has "wrong shape message" "has shape [3, 4], method 'scale' expects Float [2, 4]"
fi
npy "$work/f32_8.npy" '<f4' '(8,)' 32
if run "wrong rank" 1 "$zoo/multi_method.pte" --method scale --input "$work/f32_8.npy"; then
  has "wrong rank message" "has shape [8] (rank 1)"
fi
printf 'not an npy file' >"$work/junk.npy"
if run "bad npy" 1 "$zoo/multi_method.pte" --method scale --input "$work/junk.npy"; then
  has "bad npy message" "is not a .npy file"
fi
if run "too many inputs" 1 "$zoo/multi_method.pte" --method scale --input "$work/f32_2x4.npy" --input "$work/f32_2x4.npy"; then
  has "too many inputs message" "2 --input files given"
fi

# --- memory sized from the program is capped (--max-memory): crafted programs, written as
# JSON and encoded with flatc against the runtime's own schema.
schema=$(dirname "$0")/../../runtime/schema
pte() { # pte NAME PLAN_JSON: $work/NAME.pte (program.fbs names the extension) with the one
        # method 'forward' described by PLAN_JSON
  printf '{ "execution_plan": [ { "name": "forward", "operators": [], "delegates": [], %s,
      "chains": [ { "inputs": [], "outputs": [], "instructions": [] } ] } ] }\n' "$2" >"$work/$1.json"
  flatc --binary -o "$work" "$schema/program.fbs" "$work/$1.json"
}
huge_tensor='{ "val_type": "Tensor", "val": { "scalar_type": "FLOAT", "sizes": [1073741824, 1073741824], "dim_order": [0, 1] } }'
pte huge_planned '"values": [], "inputs": [], "outputs": [], "non_const_buffer_sizes": [0, 4611686018427387904, 4611686018427387904]'
pte small_planned '"values": [], "inputs": [], "outputs": [], "non_const_buffer_sizes": [0, 1048576]'
pte huge_output '"values": ['"$huge_tensor"'], "inputs": [], "outputs": [0], "non_const_buffer_sizes": [0]'
pte huge_input '"values": ['"$huge_tensor"'], "inputs": [0], "outputs": [], "non_const_buffer_sizes": [0]'
if run "huge planned buffers" 1 "$work/huge_planned.pte"; then
  has "huge planned buffers refused" "Error::MemoryAllocationFailed (0x21)"
  has "huge planned buffers size" "planned buffers: 9223372036854775808 bytes"
  has "huge planned buffers limit" "exceed the memory limit of"
  has "huge planned buffers hint" "raise it with --max-memory"
fi
if run "max-memory below the need" 1 "$work/small_planned.pte" --max-memory 1048575; then
  has "max-memory below the need message" "1048576 bytes (0 already reserved) exceed the memory limit of 1048575 bytes"
fi
if run "max-memory raised" 0 "$work/small_planned.pte" --max-memory 1M; then
  has "max-memory raised runs" "outputs (0):"
fi
if run "huge unplanned output" 1 "$work/huge_output.pte" --max-memory 1T; then
  has "huge unplanned output message" "output 0: 4611686018427387904 bytes (0 already reserved) exceed the memory limit of 1099511627776 bytes"
fi
if run "huge input" 1 "$work/huge_input.pte"; then
  has "huge input message" "input 0: 4611686018427387904 bytes"
fi
if run "huge output below the limit" 1 "$work/huge_output.pte" --max-memory 18446744073709551615; then
  has "huge output allocation failure" "cannot allocate 4611686018427387904 bytes"
fi
if run "max-memory usage error" 2 "$work/small_planned.pte" --max-memory lots; then
  has "max-memory usage message" "--max-memory: 'lots' is not a byte count"
fi
if run "help" 0 --help; then
  has "help documents --max-memory" "--max-memory BYTES"
fi

echo "== $pass passed, $fail failed =="
[ $fail -eq 0 ]
