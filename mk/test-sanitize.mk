# check-sanitize: the loader and execution GoogleTest suites again, under ASan and UBSan
# (docs/testing.md), and the XNNPACK backend's group (malformed payloads, load/unload leaks).
# Included by mk/check.mk.
#
# A sub-make builds a separate instrumented tree $(O)/san (SAN=address,undefined: the runtime,
# libexecutorch.so.1 included, the kernel library and the XNNPACK backend; not the tools) and
# runs its own check-unit-<group> targets there, -k so that one group failing to build does
# not stop the others. The jobserver is passed through (+, $(MAKE)), so `make -jN check` shares
# its N slots with the sub-make. Each group records "<passed> <failed>" in $(O)/san/check; they
# are summed (test/tools/sum-subcheck.sh) into this suite's result, so the closing "N passed,
# N failed" counts every sanitized test. A group with no result (its build failed) counts as
# one failure. The sub-make's output is in $(CHECK_DIR)/sanitize.log.
#
# The test programs link the main tree's test objects (ET_TEST_OBJS_FROM, mk/rules.mk), not
# instrumented copies: the faults looked for are the libraries', and those are instrumented,
# while ASan's allocator and LeakSanitizer watch every allocation of the process whichever
# object made it. Neither the tests nor the runtime's headers change with a sanitizer (no
# __SANITIZE_ADDRESS__ or __has_feature test in them), and each shared library keeps its own
# instrumented copy of every inline function it uses (hidden visibility). Compiling those
# objects again under GCC's ASan+UBSan was the largest part of this tree: 522 of its 1,160
# compile seconds on a fresh machine.
#
# Skipped when the whole tree is already a SAN= build (the plain suites are sanitized then),
# which also keeps the sub-make from recursing.

ifeq ($(strip $(SAN)),)
SANCHECK_O := $(O)/san
SANCHECK_DIR := $(SANCHECK_O)/check
SANCHECK_GROUPS := program method module registry core backend_xnnpack
# -O0 with line tables (reports keep file:line). These trees are nearly all compile time: their
# tests run in seconds, while GCC's instrumented -O1 took 2.4 times as long as -O0 to compile
# the largest kernel source here (ops/elementwise_binary_more.cpp, ASan+UBSan: 115 s against
# 47 s). The sanitizers find the same faults unoptimized; at -O0 no check is optimized away.
# Warnings are not errors there: instrumentation changes GCC's flow analysis, which then reports
# false positives (e.g. -Wstringop-overread on flatbuffers strings); the main tree keeps -Werror.
SANCHECK_TREE_CXXFLAGS := -O0 -g1 -Wno-error
SANCHECK_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# What the groups link from test/ (the registry group's plugin included, mk/test-registry.mk).
SANCHECK_MAIN_TEST_OBJS := $(patsubst %.cpp,$(O)/%.o,$(wildcard \
  $(foreach g,$(SANCHECK_GROUPS),test/unit/$(g)/*.cpp))) $(REG_OBJS)

CHECKS += sanitize
.PHONY: check-sanitize
check-sanitize: $(SANCHECK_MAIN_TEST_OBJS)
	@mkdir -p $(CHECK_DIR) $(SANCHECK_DIR)
	@rm -f $(foreach g,$(SANCHECK_GROUPS),$(SANCHECK_DIR)/unit-$(g).result)
	+@start=$$(date +%s); \
	$(SANCHECK_ENV) $(MAKE) -k --no-print-directory O=$(SANCHECK_O) SAN=address,undefined \
	  ET_TREE_CXXFLAGS='$(SANCHECK_TREE_CXXFLAGS)' ET_TEST_OBJS_FROM=$(O) \
	  CHECK_DIR=$(SANCHECK_DIR) $(addprefix check-unit-,$(SANCHECK_GROUPS)) \
	  >$(CHECK_DIR)/sanitize.log 2>&1; \
	sh test/tools/sum-subcheck.sh $(CHECK_DIR) sanitize "under ASan+UBSan in $(SANCHECK_O)" \
	  $$start $(SANCHECK_DIR) $(addprefix unit-,$(SANCHECK_GROUPS))
endif
