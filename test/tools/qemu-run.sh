#!/bin/sh
# qemu-run.sh PROGRAM [ARGS...]: runs a program built for another architecture under qemu-user
# (make check-aarch64, mk/check-cross.mk), with the target's shared libraries from
# $ET_QEMU_SYSROOT (default /: Debian's multiarch arm64 libc6 and libstdc++6, mk/deps.sh).
# Not the cross toolchain's /usr/aarch64-linux-gnu: under qemu 7.2 its C library (2.36-8cross1)
# hangs in pthread_create, spinning before the new thread's stack is even mapped (and a forked
# death-test child that aborts spins the same way), while Debian's libc6:arm64 of the same
# release starts threads normally.
#
# The program sees this script as its argv[0] (qemu -0), and ET_QEMU_SELF names the program in
# its environment: a program that re-executes itself through argv[0] (GoogleTest's death tests
# fork and execv(argv[0])) then comes back here, and so under qemu again. Without binfmt_misc
# (containers rarely have it) the kernel cannot execute an AArch64 file directly.
#
# `qemu-run.sh -- PROGRAM [ARGS...]` always starts PROGRAM, whatever the environment says: the
# form a program under emulation uses to run another target program (ET_TEST_EXEC, exported
# here: tests that start a helper program put it in front).
set -u
if [ "${1:-}" != -- ] && [ -n "${ET_QEMU_SELF:-}" ]; then
  program=$ET_QEMU_SELF
else
  [ "${1:-}" = -- ] && shift
  program=$1
  shift
  case $program in /*) ;; *) program=$(pwd)/$program ;; esac
  ET_QEMU_SELF=$program
  export ET_QEMU_SELF
fi
self=$0
case $self in /*) ;; *) self=$(pwd)/$self ;; esac
ET_TEST_EXEC="$self --"
export ET_TEST_EXEC
exec "${ET_QEMU:-qemu-aarch64-static}" -L "${ET_QEMU_SYSROOT:-/}" \
  -0 "$self" "$program" "$@"
