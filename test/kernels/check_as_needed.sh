#!/bin/sh
# check_as_needed.sh DROPPED KEPT
# DROPPED was linked with a plain --as-needed: libexecutorch_kernels.so.1 must be missing
# from its DT_NEEDED and the operator lookup must fail with OperatorMissing (0x14), which is
# what a Method load reports for every kernel. KEPT used KERNELS_LINK (scoped
# --no-as-needed) and must find the operator.
set -u
dropped=$1; kept=$2; rc=0
if readelf -d "$dropped" | grep -q 'libexecutorch_kernels'; then
  echo "FAIL: $dropped still needs libexecutorch_kernels.so.1"; rc=1
else
  echo "ok: plain --as-needed dropped libexecutorch_kernels.so.1 from DT_NEEDED"
fi
out=$("$dropped" 2>&1); st=$?
echo "  $dropped -> $out"
if [ $st -eq 0 ] || ! echo "$out" | grep -q 'error 0x14'; then
  echo "FAIL: expected OperatorMissing without the kernel library"; rc=1
fi
if ! readelf -d "$kept" | grep -q 'libexecutorch_kernels.so.1'; then
  echo "FAIL: $kept does not need libexecutorch_kernels.so.1"; rc=1
fi
out=$("$kept" 2>&1); st=$?
echo "  $kept -> $out"
[ $st -eq 0 ] || { echo "FAIL: the operator is missing with KERNELS_LINK"; rc=1; }
exit $rc
