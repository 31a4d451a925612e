# Coverage-guided fuzzing with clang's libFuzzer (Debian clang-14 + libclang-rt-14-dev, installed
# by mk/deps.mk). docs/testing.md ("Fuzzing") explains how to run it and how to add a regression.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="program_load ..."]   fuzz each target in turn
#   make fuzz-build                                                  only build the fuzzers
#   make check-fuzz-replay-<t> / check-fuzz-run-<t>                  the make check suites
#
# The sources live in test/fuzz/, not a new top-level directory: the targets are tests (they
# reuse the tests' .pte writer, test/unit/program/pte_writer.*, and the zoo fixtures) and their
# committed regression inputs are test data like test/fixtures.
#
# Targets (test/fuzz/<t>_fuzzer.cpp):
#   program_load     a .pte through Program::load (both verification levels), every method's
#                    meta and load_method                          (structure-aware mutator)
#   method_execute   a .pte loaded and every method executed on inputs synthesized from its
#                    MethodMeta, real kernels linked in            (structure-aware mutator)
#   flat_tensor      a .ptd through FlatTensorDataMap, then a zoo program executed against it
#   python_call      embedded CPython: Method.__call__/execute argument conversion
#                    (pybind/convert.cpp, dlpack.cpp) on arguments built from the bytes
#   xnnpack          an XNNPACK delegate payload through XnnpackBackend's init and, when
#                    accepted, executions (seeds, test/fuzz/seeds/xnnpack: the payloads of the
#                    zoo's *_xnnpack* programs and a single-node graph per node type, the
#                    latter from `make fuzz-xnnpack-seeds`; named constants served as filler)
#                                                                  (its own structure-aware mutator)
#   bundled_program  a .bpte through get_program_data and BundledProgramReader, then every
#                    test case through load_bundled_input, execute and verify_method_outputs
#
# Build: a sub-make builds a separate tree $(O)/fuzz with clang (FUZZ_CXX) and
# SAN=address,undefined,fuzzer-no-link, SHARED=1, and links each fuzzer with -fsanitize=fuzzer
# against the tree's shared libraries (through its RUNPATH). The libraries are linked without
# -z defs (SHLIB_DEFS, mk/flags.mk): clang puts its sanitizer runtime into executables only,
# which export it to the libraries they load, and libFuzzer collects the coverage counters of
# every instrumented module. The same tree runs check-sanitize's ASan+UBSan test groups
# (mk/test-sanitize.mk), so the libraries are instrumented and compiled once for both. Test
# objects that the main tree compiles too (the .pte writer) are copied from it
# (ET_TEST_OBJS_FROM). The main build stays g++.
#
# Corpora: seeds are every zoo fixture (test/fixtures/zoo/*.pte for the .pte targets, *.ptd
# for flat_tensor, test/fuzz/seeds/python_call for python_call, test/fixtures/bundled/*.bpte
# for bundled_program), staged read-only under
# $(O)/fuzz/seeds/<t>; what libFuzzer finds goes to $(O)/fuzz/corpus/<t> (kept between runs),
# crashes to $(O)/fuzz/artifacts/<t>/. Each target has a dictionary, test/fuzz/dict/<t>.dict.
#
# make check: two suites per target. check-fuzz-replay-<t> runs the fuzzer binary once over
# every committed regression input in test/fuzz/regressions/<t>/ (libFuzzer runs the given
# files and exits; one PASS/FAIL per input). check-fuzz-run-<t> fuzzes from the seeds for a
# fixed number of executions, FUZZ_CHECK_RUNS_<t>, with a fixed seed and a fresh corpus: the
# same inputs on every machine, so make check cannot pass here and fail in CI by chance; the
# long runs are `make fuzz`'s. Both use the fuzzer binaries, so the replay costs no build of its
# own: the one cost is the clang tree, built once (ccache keeps rebuilds cheap:
# FUZZ_CXX="ccache clang++-14").

FUZZ_ALL_TARGETS := program_load method_execute flat_tensor python_call xnnpack bundled_program
FUZZ_TARGETS ?= $(FUZZ_ALL_TARGETS)
FUZZ_SECONDS ?= 60
FUZZ_CHECK_RUNS_program_load ?= 30000
FUZZ_CHECK_RUNS_method_execute ?= 20000
FUZZ_CHECK_RUNS_flat_tensor ?= 500000
FUZZ_CHECK_RUNS_python_call ?= 100000
FUZZ_CHECK_RUNS_xnnpack ?= 100000
FUZZ_CHECK_RUNS_bundled_program ?= 20000
FUZZ_CXX ?= clang++-14
# -O1 with line tables: what libFuzzer's documentation suggests for sanitized fuzzers, and
# symbolized stacks for every report. The kernel library alone is built at -O0
# (FUZZ_KERNELS_OPT): it is most of this tree's compile time, which every fresh machine's
# make check pays, and clang's instrumented -O1 took four times as long as -O0 on its largest
# source (ops/elementwise_binary_more.cpp: 147 s against 35 s). The loader and verifier, where
# the load-only fuzzers spend their time, stay at -O1: with them at -O0 too, make check's
# fixed-length run of program_load took 323 s (beside a busy core) instead of about 10.
# FUZZ_KERNELS_OPT= (empty) gives long sessions of method_execute or xnnpack the faster kernels.
FUZZ_CXXFLAGS ?= -O1 -gline-tables-only
FUZZ_KERNELS_OPT ?= -O0
FUZZ_SAN := address,undefined
# Per-input limits: a program that loops or allocates without bound is reported by libFuzzer
# as a timeout or an out-of-memory input.
FUZZ_FLAGS ?= -timeout=25 -rss_limit_mb=3072 -max_len=1048576
FUZZ_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# CPython keeps its objects until exit; LeakSanitizer would report every one of them.
FUZZ_ENV_python_call := ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:allocator_may_return_null=1 \
                        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

FUZZ_SRC := test/fuzz
FUZZ_EMBED := $(shell $(PYTHON)-config --embed --ldflags 2>/dev/null)

ifeq ($(FUZZ_INNER),1)
# ---- Inside the sub-make: O is the outer $(O)/fuzz, CXX is clang, SAN includes fuzzer-no-link.

FUZZ_BIN := $(O)/bin
FUZZ_COMMON_OBJS := $(O)/$(FUZZ_SRC)/fuzz_common.o
FUZZ_MUTATOR_OBJS := $(O)/$(FUZZ_SRC)/pte_mutator.o $(O)/test/unit/program/pte_writer.o
# The xnnpack target's own mutator (XNNGraph payloads) and its seed generator.
FUZZ_XNN_MUTATOR_OBJS := $(O)/$(FUZZ_SRC)/xnnpack_mutator.o
FUZZ_XNN_SEEDGEN_OBJS := $(O)/$(FUZZ_SRC)/make_xnnpack_seeds.o
FUZZ_OWN_OBJS := $(FUZZ_COMMON_OBJS) $(FUZZ_MUTATOR_OBJS) $(FUZZ_XNN_MUTATOR_OBJS) \
                 $(FUZZ_XNN_SEEDGEN_OBJS) \
                 $(foreach t,$(FUZZ_ALL_TARGETS),$(O)/$(FUZZ_SRC)/$(t)_fuzzer.o)
ALL_OBJS += $(FUZZ_OWN_OBJS)

# Where the targets find the zoo and the Python driver when run from anywhere (ET_ZOO_DIR and
# ET_FUZZ_SOURCE_DIR override at run time).
$(FUZZ_OWN_OBJS): ET_CPPFLAGS += -DET_FUZZ_ZOO_DIR='"$(CURDIR)/test/fixtures/zoo"' \
                                 -DET_FUZZ_SOURCE_DIR='"$(CURDIR)"'
$(FUZZ_OWN_OBJS): mk/fuzz.mk
$(O)/$(FUZZ_SRC)/python_call_fuzzer.o: ET_CPPFLAGS += -isystem $(PY_INCLUDES)
# After CXXFLAGS (the command line's, which a plain target-specific value cannot follow), so
# its -O wins; a change to this file rebuilds them.
$(KERNELS_OBJS): override CXXFLAGS += $(FUZZ_KERNELS_OPT)
$(KERNELS_OBJS): mk/fuzz.mk

# Recursive (=) and expanded in the recipe: it holds $$ORIGIN for the shell.
FUZZ_SHARED_LINK = $(KERNELS_LINK) $(RT_LINK) -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../lib' -ldl
FUZZ_OBJS_program_load := $(FUZZ_COMMON_OBJS) $(FUZZ_MUTATOR_OBJS)
FUZZ_OBJS_method_execute := $(FUZZ_COMMON_OBJS) $(FUZZ_MUTATOR_OBJS)
FUZZ_OBJS_flat_tensor := $(FUZZ_COMMON_OBJS)
FUZZ_OBJS_bundled_program := $(FUZZ_COMMON_OBJS)
FUZZ_OBJS_python_call := $(PY_OBJS)
FUZZ_LIBS_python_call := $(FUZZ_EMBED)
# The backend's objects themselves: the target calls its hidden graph builder directly. The
# program holds the only copy, so the backend registers once.
FUZZ_OBJS_xnnpack := $(FUZZ_COMMON_OBJS) $(FUZZ_XNN_MUTATOR_OBJS) $(XNNPACK_OBJS)

define fuzz_binary
$(FUZZ_BIN)/$(1)_fuzzer: $(O)/$(FUZZ_SRC)/$(1)_fuzzer.o $$(FUZZ_OBJS_$(1)) $(RT_LIBS) $(KERNELS_LIBS) \
                         $(LINK_STAMP)
	$$(quiet) LD $$@
	@mkdir -p $$(@D)
	$$(Q)$$(CXX) -fsanitize=fuzzer,$(FUZZ_SAN) $$(ET_LDFLAGS) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) \
	  $$(FUZZ_LIBS_$(1)) $$(FUZZ_SHARED_LINK) $$(LDLIBS)
endef
$(foreach t,$(FUZZ_ALL_TARGETS),$(eval $(call fuzz_binary,$(t))))

.PHONY: fuzz-binaries
fuzz-binaries: $(foreach t,$(FUZZ_TARGETS),$(FUZZ_BIN)/$(t)_fuzzer)

# The seed generator (test/fuzz/make_xnnpack_seeds.cpp): a plain program, no libFuzzer main, that
# checks each seed with the backend's own init before writing it, so it links the backend's
# objects as the xnnpack fuzzer does.
$(FUZZ_BIN)/make_xnnpack_seeds: $(FUZZ_XNN_SEEDGEN_OBJS) $(XNNPACK_OBJS) $(RT_LIBS) $(KERNELS_LIBS) \
                                $(LINK_STAMP)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) -fsanitize=$(FUZZ_SAN) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) \
	  $(FUZZ_SHARED_LINK) $(LDLIBS)

else
# ---- The top-level make: build through the sub-make, stage seeds, run.

FUZZ_O := $(O)/fuzz
FUZZ_BIN := $(FUZZ_O)/bin
FUZZ_ZOO := test/fixtures/zoo
FUZZ_SEED_FILES_program_load := $(wildcard $(FUZZ_ZOO)/*.pte)
FUZZ_SEED_FILES_method_execute := $(wildcard $(FUZZ_ZOO)/*.pte)
FUZZ_SEED_FILES_flat_tensor := $(wildcard $(FUZZ_ZOO)/*.ptd)
FUZZ_SEED_FILES_python_call := $(wildcard $(FUZZ_SRC)/seeds/python_call/*)
FUZZ_SEED_FILES_xnnpack := $(wildcard $(FUZZ_SRC)/seeds/xnnpack/*)
FUZZ_SEED_FILES_bundled_program := $(wildcard test/fixtures/bundled/*.bpte)

# The clang tree's make, for fuzz-build and check-sanitize alike: the same variables, so the
# second finds the first's objects up to date (the flags stamp, mk/rules.mk).
FUZZ_TREE_MAKE = $(MAKE) --no-print-directory O=$(FUZZ_O) SHARED=1 CXX='$(FUZZ_CXX)' \
  CXXFLAGS='$(FUZZ_CXXFLAGS)' SAN=$(FUZZ_SAN),fuzzer-no-link SHLIB_DEFS= FUZZ_INNER=1 \
  FUZZ_KERNELS_OPT='$(FUZZ_KERNELS_OPT)' ET_TEST_OBJS_FROM=$(O)
# The main tree's objects the fuzzers link (copied, ET_TEST_OBJS_FROM).
FUZZ_MAIN_TEST_OBJS := $(O)/test/unit/program/pte_writer.o

.PHONY: fuzz fuzz-build
# The jobserver is shared (+, $(MAKE)); -k so one target failing to build leaves the others.
fuzz-build: $(FUZZ_MAIN_TEST_OBJS) | $(DEPS_STAMP)
	+$(Q)$(FUZZ_TREE_MAKE) -k FUZZ_TARGETS='$(FUZZ_TARGETS)' fuzz-binaries

# The seed directory of target $(1): copies, so libFuzzer never writes into the fixtures.
define fuzz_seeds
$(FUZZ_O)/seeds/$(1)/.stamp: $$(FUZZ_SEED_FILES_$(1)) mk/fuzz.mk
	@rm -rf $$(@D) && mkdir -p $$(@D)
	$$(Q)$$(if $$(FUZZ_SEED_FILES_$(1)),cp $$(FUZZ_SEED_FILES_$(1)) $$(@D)/)
	@touch $$@
endef
$(foreach t,$(FUZZ_ALL_TARGETS),$(eval $(call fuzz_seeds,$(t))))

# fuzz_cmd(target, seconds): one libFuzzer session (new inputs into the kept corpus).
fuzz_cmd = $(or $(FUZZ_ENV_$(1)),$(FUZZ_ENV)) $(FUZZ_BIN)/$(1)_fuzzer $(FUZZ_FLAGS) \
  -max_total_time=$(2) -dict=$(FUZZ_SRC)/dict/$(1).dict \
  -artifact_prefix=$(FUZZ_O)/artifacts/$(1)/ $(FUZZ_O)/corpus/$(1) $(FUZZ_O)/seeds/$(1)

# The xnnpack target's single-node seeds (node-*, quant-*; the zoo payloads beside them are
# extracted from the zoo instead): regenerated into the source tree, to be committed.
.PHONY: fuzz-xnnpack-seeds
fuzz-xnnpack-seeds: $(FUZZ_MAIN_TEST_OBJS) | $(DEPS_STAMP)
	+$(Q)$(FUZZ_TREE_MAKE) $(FUZZ_BIN)/make_xnnpack_seeds
	$(Q)rm -f $(FUZZ_SRC)/seeds/xnnpack/node-* $(FUZZ_SRC)/seeds/xnnpack/quant-*
	$(Q)$(FUZZ_ENV) $(FUZZ_BIN)/make_xnnpack_seeds $(FUZZ_SRC)/seeds/xnnpack

fuzz: fuzz-build $(foreach t,$(FUZZ_TARGETS),$(FUZZ_O)/seeds/$(t)/.stamp)
	@for t in $(FUZZ_TARGETS); do mkdir -p $(FUZZ_O)/corpus/$$t $(FUZZ_O)/artifacts/$$t; done
	@status=0; $(foreach t,$(FUZZ_TARGETS),echo "  FUZZ    $(t) ($(FUZZ_SECONDS)s)"; \
	  $(call fuzz_cmd,$(t),$(FUZZ_SECONDS)) || status=1;) \
	echo "  crashes (if any): $(FUZZ_O)/artifacts/"; exit $$status

# make check suites (mk/check.mk is read before this file, so `check` gets them here; its
# summary reads $(CHECKS) when it runs).
define fuzz_checks
CHECKS += fuzz-replay-$(1) fuzz-run-$(1)
check: check-fuzz-replay-$(1) check-fuzz-run-$(1)
.PHONY: check-fuzz-replay-$(1) check-fuzz-run-$(1)
check-fuzz-replay-$(1): fuzz-build
	@$$(RUN_CHECK) fuzz-replay-$(1) env $(or $(FUZZ_ENV_$(1)),$(FUZZ_ENV)) \
	  sh $(FUZZ_SRC)/replay.sh $(FUZZ_BIN)/$(1)_fuzzer $(FUZZ_SRC)/regressions/$(1)
check-fuzz-run-$(1): fuzz-build $(FUZZ_O)/seeds/$(1)/.stamp
	@rm -rf $(FUZZ_O)/check-corpus/$(1) && mkdir -p $(FUZZ_O)/check-corpus/$(1) $(FUZZ_O)/artifacts/$(1)
	@$$(RUN_CHECK) fuzz-run-$(1) env $(or $(FUZZ_ENV_$(1)),$(FUZZ_ENV)) $(FUZZ_BIN)/$(1)_fuzzer \
	  $(FUZZ_FLAGS) -seed=1 -runs=$$(FUZZ_CHECK_RUNS_$(1)) -dict=$(FUZZ_SRC)/dict/$(1).dict \
	  -artifact_prefix=$(FUZZ_O)/artifacts/$(1)/ $(FUZZ_O)/check-corpus/$(1) $(FUZZ_O)/seeds/$(1)
endef
$(foreach t,$(FUZZ_ALL_TARGETS),$(eval $(call fuzz_checks,$(t))))

endif
