#!/bin/sh
# Builds the upstream-style consumer programs in this directory against an
# ExecuTorch include root and library, then runs them on the zoo fixtures (and
# the bundled-program fixtures beside them, ZOO_DIR/../bundled).
#
#   run.sh OUT_DIR INCLUDE_DIR LIB_DIR ZOO_DIR [extra link flags...]
#
# Each program is compiled as a client would compile it (C++17, -Wall -Wextra
# -Werror, -I INCLUDE_DIR) and linked with -L LIB_DIR -lexecutorch (the extra
# flags replace that when given, e.g. for a static library; KERNELS_LINK in the
# environment links the kernel library where a program needs it). Exits non-zero if
# any program fails to build or run.
set -u
out=$1; inc=$2; lib=$3; zoo=$4; shift 4
here=$(dirname "$0")
cxx=${CXX:-g++}
if [ $# -gt 0 ]; then link="$*"; else link="-L$lib -lexecutorch"; fi
mkdir -p "$out"
failed=0

build() { # name [link flags before the runtime's]
  name=$1; shift
  if ! $cxx -std=c++17 -Wall -Wextra -Werror -I"$inc" -o "$out/$name" "$here/$name.cpp" \
       "$@" $link -Wl,-rpath,"$lib" -pthread >"$out/$name.build.log" 2>&1; then
    echo "FAIL build $name"; sed 's/^/  | /' "$out/$name.build.log" | head -40
    failed=$((failed + 1)); return 1
  fi
  return 0
}

run() { # name args...
  name=$1; shift
  if "$out/$name" "$@" >"$out/$name.run.log" 2>&1; then
    echo "ok   $name"
  else
    echo "FAIL run $name $*"; sed 's/^/  | /' "$out/$name.run.log" | tail -30
    failed=$((failed + 1))
  fi
}

# The Module example must also compile as C++20.
if ! $cxx -std=c++20 -Wall -Wextra -Werror -I"$inc" -fsyntax-only \
     "$here/module_example.cpp" >"$out/module_example.cxx20.log" 2>&1; then
  echo "FAIL build module_example (C++20)"; head -40 "$out/module_example.cxx20.log"
  failed=$((failed + 1))
fi

build module_example && run module_example "$zoo/identity.pte"
build tensor_example && run tensor_example
build lowlevel_example && run lowlevel_example "$zoo/identity.pte"
build executor_runner && run executor_runner "$zoo/identity.pte"
build custom_backend && run custom_backend
build etdump_example && run etdump_example "$zoo/identity.pte" "$out/identity.etdp"
build threadpool_example && run threadpool_example
# KERNELS_LINK (the environment): how to link the kernel library.
build bundled_runner ${KERNELS_LINK:-} && run bundled_runner "$zoo/../bundled/mlp.bpte" 2

# The LLM example needs the kernel library (its llama:: operators) and the XNNPACK backend
# library on top of the runtime. Every program of test/fixtures/llm (portable, XNNPACK fp32,
# XNNPACK 8da4w) runs; its greedy tokens must equal the first ones upstream's runtime gave.
llm_dir=$(dirname "$zoo")/llm
link=${COMPAT_LLM_LINK:-"-L$lib -Wl,--push-state,--no-as-needed -lexecutorch_backend_xnnpack -lexecutorch_kernels -lexecutorch -Wl,--pop-state"}
if build llm_example; then
  python3 -c "import json,sys
for p in json.load(open(sys.argv[1]))['programs']:
    print(p['file'], ','.join(map(str, p['prompt'])), ' '.join(map(str, p['expected_tokens_upstream'][:8])))" \
    "$llm_dir/manifest.json" >"$out/llm_example.cases" || failed=$((failed + 1))
  while read -r case; do
    set -- $case
    if "$out/llm_example" "$llm_dir/$1" "$2" 8 >"$out/llm_example.run.log" 2>&1 &&
       [ "$(tr '\n' ' ' <"$out/llm_example.run.log" | sed 's/ $//')" = "$3 $4 $5 $6 $7 $8 $9 ${10}" ]; then
      echo "ok   llm_example $1"
    else
      echo "FAIL run llm_example $1: wanted $3 $4 $5 $6 $7 $8 $9 ${10}"
      sed 's/^/  | /' "$out/llm_example.run.log" | tail -20
      failed=$((failed + 1))
    fi
  done <"$out/llm_example.cases"
fi

if [ $failed -ne 0 ]; then
  echo "compat: $failed failure(s)"
  exit 1
fi
echo "compat: all consumer programs built and ran"
