# check-tsan: the registry tests (test/unit/registry/, with its concurrent registrations), the
# thread pool tests (test/unit/threadpool/: concurrent regions, resizes, nesting), the
# concurrent-method tests (test/unit/concurrency/) and the Python thread tests
# (test/python/test_threads.py) again, under ThreadSanitizer. Included by mk/check.mk before
# the unit groups are defined.
#
# The concurrency group runs zoo fixtures, so it links the kernel library (in every tree).
#
# A sub-make builds a separate instrumented tree $(O)/tsan (SAN=thread). Everything it builds
# is instrumented: libexecutorch.so.1, the test binaries, the Python extension and, because
# the concurrency tests and Python run models, libexecutorch_kernels.so.1 (kernels run on
# several threads at once, so their memory accesses must be seen too); the tools and the
# other groups are not built. As in mk/test-sanitize.mk the jobserver is shared (+, $(MAKE)),
# -k keeps one check's build failure from stopping the others, each check records
# "<passed> <failed>" in $(O)/tsan/check and the sum (test/tools/sum-subcheck.sh) is this
# suite's result (a check with no result counts as one failure). A race makes the test
# process exit non-zero (TSan's exitcode 66), which test/tools/run-check.sh counts as a
# failure even when every test passed. The sub-make's output is in $(CHECK_DIR)/tsan.log.
#
# TSan needs the low-entropy address layout of its shadow mapping: on kernels with
# vm.mmap_rnd_bits above 28 it stops with "unexpected memory mapping". The sub-make (and so
# every test it runs) runs under `setarch -R` (no address randomization) when that is
# permitted, which avoids it; on this project's machines mmap_rnd_bits is 28 and both work.
#
# Python under TSan: the interpreter itself is not instrumented, so libtsan is preloaded
# (LD_PRELOAD) into the real interpreter binary (sys.executable: a launcher script such as a
# pyenv shim would get it too, and bash crashes with libtsan preloaded). Only the extension,
# the runtime and the kernels are instrumented, so TSan sees their accesses, while CPython's
# locks (the GIL included) reach it through libtsan's pthread interceptors.
# PYTHONMALLOC=malloc routes CPython's allocations through malloc, which TSan tracks, so
# memory that pymalloc would recycle out of its sight cannot look like a race. With that the
# run is clean without any suppression; removing the per-Method lock in pybind/convert.cpp
# makes it report the race in Method::set_input.
#
# Skipped when the whole tree is already a SAN= build, which also keeps the sub-make from
# recursing.

UNIT_concurrency_EXTRA_LIBS = $(KERNELS_LINK)
UNIT_concurrency_EXTRA_DEPS = $(KERNELS_LIBS)
$(O)/test/unit/concurrency/test_concurrency: $(KERNELS_LIBS)

ifeq ($(strip $(SAN)),)
TSANCHECK_O := $(O)/tsan
TSANCHECK_DIR := $(TSANCHECK_O)/check
TSANCHECK_GROUPS := registry concurrency threadpool
TSANCHECK_CHECKS := $(addprefix unit-,$(TSANCHECK_GROUPS))
ifeq ($(SHARED),1)
TSANCHECK_CHECKS += python-threads
endif
# -O0 with line tables (reports keep file:line). The tree is nearly all compile time: its tests
# run in seconds, while GCC's instrumented -O1 compiled the largest kernel source
# (ops/elementwise_binary_more.cpp) in 28 s against 16 s at -O0; TSan finds the same races
# unoptimized. Warnings are not errors there: instrumentation changes GCC's flow analysis, which
# then reports false positives; the main tree keeps -Werror.
TSANCHECK_TREE_CXXFLAGS := -O0 -g1 -Wno-error
# halt_on_error=0: every report of a run is logged; the exit code still fails the check.
TSANCHECK_ENV := TSAN_OPTIONS='halt_on_error=0 second_deadlock_stack=1'

CHECKS += tsan
.PHONY: check-tsan
check-tsan:
	@mkdir -p $(CHECK_DIR) $(TSANCHECK_DIR)
	@rm -f $(foreach c,$(TSANCHECK_CHECKS),$(TSANCHECK_DIR)/$(c).result)
	+@start=$$(date +%s); \
	norandom=; \
	if setarch "$$(uname -m)" -R true 2>/dev/null; then norandom="setarch $$(uname -m) -R"; fi; \
	$(TSANCHECK_ENV) $$norandom $(MAKE) -k --no-print-directory O=$(TSANCHECK_O) SAN=thread \
	  ET_TREE_CXXFLAGS='$(TSANCHECK_TREE_CXXFLAGS)' \
	  CHECK_DIR=$(TSANCHECK_DIR) $(addprefix check-,$(TSANCHECK_CHECKS)) \
	  >$(CHECK_DIR)/tsan.log 2>&1; \
	sh test/tools/sum-subcheck.sh $(CHECK_DIR) tsan "under TSan in $(TSANCHECK_O)" \
	  $$start $(TSANCHECK_DIR) $(TSANCHECK_CHECKS)
endif

# In the TSan tree itself: the Python thread tests with libtsan preloaded (see above).
ifeq ($(strip $(SAN)),thread)
ifeq ($(SHARED),1)
TSAN_RUNTIME := $(shell $(CXX) -print-file-name=libtsan.so)
PY_INTERPRETER := $(shell $(PYTHON) -c 'import sys; print(sys.executable)' 2>/dev/null)
CHECKS += python-threads
.PHONY: check-python-threads
check-python-threads: python
	@$(RUN_CHECK) python-threads env LD_PRELOAD='$(realpath $(TSAN_RUNTIME))' \
	  PYTHONMALLOC=malloc PYTHONPATH='$(abspath $(PY_STAGE))' \
	  ET_PY_ZOO='$(CURDIR)/test/fixtures/zoo' PYTHONDONTWRITEBYTECODE=1 \
	  '$(PY_INTERPRETER)' -m pytest -q -p no:cacheprovider test/python/test_threads.py
endif
endif
