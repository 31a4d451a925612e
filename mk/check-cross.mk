# make check-aarch64: the aarch64 build's tests, run under qemu-user on the build machine.
#
# From a native tree it builds the cross tree $(O)/aarch64 (a sub-make with ARCH=aarch64, the
# cross compiler, and ccache if CXX uses it) and runs the checks there; `make ARCH=aarch64
# check-aarch64` runs them in that tree directly. The checks, each through
# test/tools/qemu-run.sh (TARGET_EXEC, mk/cross.mk):
#   unit-<group>            every GoogleTest group (the zoo programs against their goldens within
#                           the manifest tolerances, the malformed-file cases, ...)
#   tools                   et_run end to end (test/tools-tests/et_run.sh: zoo fixtures, broken
#                           files)
#   <check>-baseline        the groups that run the compute core, again with the compute forced
#                           to the baseline level (ET_KERNELS_ISA=baseline, compute/isa.h)
#   wheel-<check>           the wheel checks that can run for a cross wheel (mk/wheel.mk): its
#                           layout and RECORD, its ELF files, import + forward in the target's
#                           Python under qemu (SHARED=1)
#
# `make check` runs it (counted in its total) when every cross package is present
# (mk/deps.sh with ET_DEPS_CROSS), and otherwise prints one SKIP line naming what is missing,
# counted neither as a pass nor as a failure: `make check-aarch64` installs them.

CROSS_CHECK_ARCH := aarch64

ifeq ($(CROSS),1)
# The groups whose results depend on the compute level, for the baseline pass.
CROSS_BASELINE_GROUPS := $(filter compute kernels_% method module,$(UNIT_GROUPS))
CROSS_CHECKS := $(addprefix unit-,$(UNIT_GROUPS)) tools \
                $(addsuffix -baseline,$(addprefix unit-,$(CROSS_BASELINE_GROUPS)) tools) \
                $(if $(filter 1,$(SHARED)),$(addprefix wheel-,$(WHL_CHECK_NAMES)))
# et_run.sh runs the program it is given: a two-line script that runs et_run under qemu.
CROSS_ET_RUN := $(O)/qemu/et_run

$(CROSS_ET_RUN): mk/check-cross.mk mk/cross.mk
	@mkdir -p $(@D)
	$(Q)printf '#!/bin/sh\nexec %s %s "$$@"\n' '$(TARGET_EXEC)' '$(abspath $(TOOLS_ET_RUN))' \
	  >$@ && chmod +x $@

# The compute group's parametrized suites (Isa/..., AllIsas/...) already run every level
# explicitly, whatever ET_KERNELS_ISA says: its baseline pass runs only the tests that use the
# process's own level (216 s of emulation saved, measured).
CROSS_BASELINE_ARGS_compute := --gtest_filter=-Isa/*:AllIsas/*

define cross_baseline_unit
.PHONY: check-unit-$(1)-baseline
check-unit-$(1)-baseline: $$(UNIT_$(1)_BIN) $$(UNIT_$(1)_EXTRA_DEPS)
	@$$(RUN_CHECK) unit-$(1)-baseline env ET_KERNELS_ISA=baseline $$(TARGET_EXEC) $$(UNIT_$(1)_BIN) \
	  $$(CROSS_BASELINE_ARGS_$(1))
endef
$(foreach g,$(CROSS_BASELINE_GROUPS),$(eval $(call cross_baseline_unit,$(g))))

.PHONY: check-tools-baseline check-$(CROSS_CHECK_ARCH)
check-tools-baseline: $(TOOLS_ET_RUN) $(CROSS_ET_RUN)
	@$(RUN_CHECK) tools-baseline env ET_KERNELS_ISA=baseline sh test/tools-tests/et_run.sh \
	  $(CROSS_ET_RUN) test/fixtures/zoo $(O)/test/tools-tests-baseline
check-tools: $(CROSS_ET_RUN)
$(addprefix check-,$(CROSS_CHECKS)): | $(DEPS_STAMP)

check-$(CROSS_CHECK_ARCH): $(addprefix check-,$(CROSS_CHECKS))
	@sh test/tools/summarize.sh $(CHECK_DIR) $(CROSS_CHECKS)
else
# The compiler of the cross tree: the native CXX's ccache, if any, in front of the cross g++.
CROSS_CHECK_CXX := $(if $(findstring ccache,$(CXX)),ccache )$(CROSS_CHECK_ARCH)-linux-gnu-g++
# -g0: the cross tree's objects only run under emulation here, never under a debugger, and debug
# info is a third of their compile time; the optimization levels stay those that ship. The tests
# stay at -O2 there (not mk/check.mk's -O1): on AArch64 GCC forms fused multiply-adds from
# a * b + c at -O2 only, and the qd8 x qb4w reference must round as the kernel built at -O3 does.
CROSS_CHECK_MAKE = $(MAKE) --no-print-directory ARCH=$(CROSS_CHECK_ARCH) ET_TREE_CXXFLAGS=-g0 \
  ET_TEST_CXXFLAGS=-O2 \
  O='$(O)/$(CROSS_CHECK_ARCH)' CXX='$(CROSS_CHECK_CXX)' AR='$(CROSS_CHECK_ARCH)-linux-gnu-ar'

.PHONY: check-$(CROSS_CHECK_ARCH)
check-$(CROSS_CHECK_ARCH):
	+$(Q)$(CROSS_CHECK_MAKE) check-$(CROSS_CHECK_ARCH)

ifneq ($(filter check,$(MAKECMDGOALS)),)
CROSS_CHECK_MISSING := $(strip $(shell ET_DEPS_CROSS=$(CROSS_CHECK_ARCH) PYTHON='$(PYTHON)' \
                         ET_DEPS_XROOT='$(DEPS_STAMP_DIR)-target/$(CROSS_CHECK_ARCH)' \
                         sh $(DEPS_SCRIPT) missing))
.PHONY: check-$(CROSS_CHECK_ARCH)-in-check
ifeq ($(CROSS_CHECK_MISSING),)
# One entry of the total, with the sub-make's own closing "N passed, N failed" as its counts.
CHECKS += $(CROSS_CHECK_ARCH)
check: check-$(CROSS_CHECK_ARCH)-in-check
check-$(CROSS_CHECK_ARCH)-in-check:
	+@$(RUN_CHECK) $(CROSS_CHECK_ARCH) $(CROSS_CHECK_MAKE) check-$(CROSS_CHECK_ARCH)
else
check: check-$(CROSS_CHECK_ARCH)-in-check
check-$(CROSS_CHECK_ARCH)-in-check:
	@echo '  SKIP    $(CROSS_CHECK_ARCH) (not run, not counted: missing $(CROSS_CHECK_MISSING);' \
	  '`make check-$(CROSS_CHECK_ARCH)` installs them)'
endif
endif
endif
