# check-tsan: the registry tests (test/unit/registry/, with its concurrent registrations) and
# the concurrent-method tests (test/unit/concurrency/) again, under ThreadSanitizer. Included
# by mk/check.mk before the unit groups are defined.
#
# The concurrency group runs zoo fixtures, so it links the kernel library (in every tree).
#
# A sub-make builds a separate instrumented tree $(O)/tsan (SAN=thread). Everything it builds
# is instrumented: libexecutorch.so.1, the test binaries and, because the concurrency tests
# link it, libexecutorch_kernels.so.1 (kernels run on several threads at once, so their
# memory accesses must be seen too); the tools, the Python extension and the other groups
# are not built. As in mk/test-sanitize.mk the jobserver is shared (+, $(MAKE)), -k keeps
# one group's build failure from stopping the other, each group records "<passed> <failed>"
# in $(O)/tsan/check and the sum (test/tools/sum-subcheck.sh) is this suite's result (a
# group with no result counts as one failure). A race makes a test binary exit non-zero
# (TSan's exitcode), which test/tools/run-check.sh counts as a failure even when every test
# passed. The sub-make's output is in $(CHECK_DIR)/tsan.log.
#
# TSan needs the low-entropy address layout of its shadow mapping: on kernels with
# vm.mmap_rnd_bits above 28 it stops with "unexpected memory mapping". The sub-make (and so
# every test it runs) runs under `setarch -R` (no address randomization) when that is
# permitted, which avoids it; on this project's machines mmap_rnd_bits is 28 and both work.
#
# Skipped when the whole tree is already a SAN= build, which also keeps the sub-make from
# recursing.

UNIT_concurrency_EXTRA_LIBS = $(KERNELS_LINK)
UNIT_concurrency_EXTRA_DEPS = $(KERNELS_LIBS)
$(O)/test/unit/concurrency/test_concurrency: $(KERNELS_LIBS)

ifeq ($(strip $(SAN)),)
TSANCHECK_O := $(O)/tsan
TSANCHECK_DIR := $(TSANCHECK_O)/check
TSANCHECK_GROUPS := registry concurrency
# halt_on_error=0: every report of a run is logged; the exit code still fails the group.
TSANCHECK_ENV := TSAN_OPTIONS='halt_on_error=0 second_deadlock_stack=1'

CHECKS += tsan
.PHONY: check-tsan
check-tsan:
	@mkdir -p $(CHECK_DIR) $(TSANCHECK_DIR)
	@rm -f $(foreach g,$(TSANCHECK_GROUPS),$(TSANCHECK_DIR)/unit-$(g).result)
	+@start=$$(date +%s); \
	norandom=; \
	if setarch "$$(uname -m)" -R true 2>/dev/null; then norandom="setarch $$(uname -m) -R"; fi; \
	$(TSANCHECK_ENV) $$norandom $(MAKE) -k --no-print-directory O=$(TSANCHECK_O) SAN=thread \
	  CHECK_DIR=$(TSANCHECK_DIR) $(addprefix check-unit-,$(TSANCHECK_GROUPS)) \
	  >$(CHECK_DIR)/tsan.log 2>&1; \
	sh test/tools/sum-subcheck.sh $(CHECK_DIR) tsan "under TSan in $(TSANCHECK_O)" \
	  $$start $(TSANCHECK_DIR) $(TSANCHECK_GROUPS)
endif
