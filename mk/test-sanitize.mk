# check-sanitize: the loader and execution GoogleTest suites again, under ASan and UBSan
# (docs/testing.md), and the XNNPACK backend's group (malformed payloads, load/unload leaks).
# Included by mk/check.mk.
#
# They run in the clang tree that also builds the fuzzers, $(O)/fuzz (mk/fuzz.mk): one
# instrumented tree (SAN=address,undefined plus the fuzzers' coverage hooks, SHARED=1: the
# runtime libexecutorch.so.1, the kernel library and the XNNPACK backend) serves both, where a
# GCC tree of its own used to compile the same libraries a second time. That tree is built
# first (fuzz-build); then a sub-make with the same variables (FUZZ_TREE_MAKE, so its flags
# stamp holds and nothing recompiles) links and runs the groups' check-unit-<group> targets,
# -k so that one group failing to build does not stop the others. The jobserver is passed
# through (+), so `make -jN check` shares its N slots with the sub-make. Each group records
# "<passed> <failed>" in $(O)/fuzz/check; they are summed (test/tools/sum-subcheck.sh) into
# this suite's result, so the closing "N passed, N failed" counts every sanitized test. A
# group with no result (its build failed) counts as one failure. The sub-make's output is in
# $(CHECK_DIR)/sanitize.log.
#
# The test programs link the main tree's test objects (ET_TEST_OBJS_FROM, mk/rules.mk), not
# instrumented copies: the faults looked for are the libraries', and those are instrumented,
# while ASan's allocator and LeakSanitizer watch every allocation of the process whichever
# object made it. Neither the tests nor the runtime's headers change with a sanitizer (no
# __SANITIZE_ADDRESS__ or __has_feature test in them), and each shared library keeps its own
# instrumented copy of every inline function it uses (hidden visibility).
#
# Skipped when the whole tree is already a SAN= build (the plain suites are sanitized then),
# which also keeps the sub-make from recursing.

ifeq ($(strip $(SAN)),)
# Recursive: FUZZ_O (the clang tree) is set by mk/fuzz.mk, read after this file.
SANCHECK_DIR = $(FUZZ_O)/check
SANCHECK_GROUPS := program method module registry core backend_xnnpack
SANCHECK_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# What the groups link from test/ (the registry group's plugin included, mk/test-registry.mk).
SANCHECK_MAIN_TEST_OBJS := $(patsubst %.cpp,$(O)/%.o,$(wildcard \
  $(foreach g,$(SANCHECK_GROUPS),test/unit/$(g)/*.cpp))) $(REG_OBJS)

CHECKS += sanitize
.PHONY: check-sanitize
check-sanitize: fuzz-build $(SANCHECK_MAIN_TEST_OBJS)
	@mkdir -p $(CHECK_DIR) $(SANCHECK_DIR)
	@rm -f $(foreach g,$(SANCHECK_GROUPS),$(SANCHECK_DIR)/unit-$(g).result)
	+@start=$$(date +%s); \
	$(SANCHECK_ENV) $(FUZZ_TREE_MAKE) -k CHECK_DIR=$(SANCHECK_DIR) \
	  $(addprefix check-unit-,$(SANCHECK_GROUPS)) >$(CHECK_DIR)/sanitize.log 2>&1; \
	sh test/tools/sum-subcheck.sh $(CHECK_DIR) sanitize "under ASan+UBSan in $(FUZZ_O)" \
	  $$start $(SANCHECK_DIR) $(addprefix unit-,$(SANCHECK_GROUPS))
endif
