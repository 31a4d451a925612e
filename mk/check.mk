# make check: every suite runs (a failing one does not stop the others), then one closing
# line "N passed, N failed"; any failure makes `make check` exit non-zero.

CHECK_DIR := $(O)/check
RUN_CHECK := sh test/tools/run-check.sh $(CHECK_DIR)

# GoogleTest suites: every directory test/unit/<group>/ becomes one binary.
UNIT_GROUPS := $(notdir $(patsubst %/,%,$(dir $(wildcard test/unit/*/*.cpp))))
UNIT_GROUPS := $(sort $(UNIT_GROUPS))
# The tests' own code is compiled at -O1 with line tables only: GoogleTest's macros make these
# files the slowest to compile at -O2 -g (about twice as slow), the code they test keeps the
# library's flags, and line tables still symbolize a crash's backtrace.
ET_TEST_CXXFLAGS ?= -O1 -g1
$(O)/test/unit/%.o: ET_CXXFLAGS += $(ET_TEST_CXXFLAGS)
define unit_group
UNIT_$(1)_SRCS := $$(wildcard test/unit/$(1)/*.cpp)
UNIT_$(1)_OBJS := $$(UNIT_$(1)_SRCS:%.cpp=$(O)/%.o)
UNIT_$(1)_BIN := $(O)/test/unit/$(1)/test_$(1)
ALL_OBJS += $$(UNIT_$(1)_OBJS)
UNIT_BINS += $$(UNIT_$(1)_BIN)
ALL_LINKED += $$(UNIT_$(1)_BIN)
$$(UNIT_$(1)_BIN): $$(UNIT_$(1)_OBJS) $(RT_LIBS) $(GTEST_LIBS)
	$$(quiet) LD $$@
	@mkdir -p $$(@D)
	$$(Q)$$(CXX) $$(ET_LDFLAGS) $$(LDFLAGS) -o $$@ $$(UNIT_$(1)_OBJS) $$(UNIT_$(1)_EXTRA_LIBS) \
	  $$(RT_LINK) -Wl,--enable-new-dtags -Wl,-rpath,'$$$$ORIGIN/../../../lib' \
	  -lgtest -lgtest_main -pthread $$(LDLIBS)
CHECKS += unit-$(1)
.PHONY: check-unit-$(1)
check-unit-$(1): $$(UNIT_$(1)_BIN) $$(UNIT_$(1)_EXTRA_DEPS)
	@$$(RUN_CHECK) unit-$(1) $$(TARGET_EXEC) $$(UNIT_$(1)_BIN)
endef
# Per-group fragments (extra test artifacts: plugins, helper programs, UNIT_<group>_EXTRA_*).
include mk/format.mk mk/test-bundled.mk mk/test-compat.mk mk/test-compute.mk mk/test-deps.mk mk/test-etdump.mk \
        mk/test-kernels.mk mk/test-backend-xnnpack.mk mk/test-module.mk \
        mk/test-program.mk mk/test-python.mk mk/test-registry.mk mk/test-sanitize.mk mk/test-tools.mk \
        mk/test-tsan.mk mk/op-coverage.mk
$(foreach g,$(UNIT_GROUPS),$(eval $(call unit_group,$(g))))

# The export list: any added or removed export of libexecutorch shows as a diff.
ifeq ($(SHARED),1)
CHECKS += exports
.PHONY: check-exports
check-exports: $(RT_REAL)
	@$(RUN_CHECK) exports sh test/tools/check-exports.sh $(RT_REAL) abi/exports.txt
# The kernel library exports only its compute interface (runtime/kernels/kernels.map), the
# XNNPACK backend nothing.
CHECKS += exports-kernels exports-backend-xnnpack
.PHONY: check-exports-kernels check-exports-backend-xnnpack
check-exports-kernels: $(KERNELS_REAL)
	@$(RUN_CHECK) exports-kernels sh test/tools/check-exports.sh $(KERNELS_REAL) abi/kernels_exports.txt
check-exports-backend-xnnpack: $(XNNPACK_REAL)
	@$(RUN_CHECK) exports-backend-xnnpack sh test/tools/check-exports.sh $(XNNPACK_REAL) \
	  abi/backend_xnnpack_exports.txt
endif

.PHONY: check update-exports
# Each suite is a prerequisite, so `make -j check` runs them in parallel; none of them fails
# the make, the summary at the end does (it reads only the results of this run's CHECKS).
check: $(addprefix check-,$(CHECKS))
	@sh test/tools/summarize.sh $(CHECK_DIR) $(CHECKS)

update-exports: $(RT_REAL)
	sh test/tools/check-exports.sh $(RT_REAL) abi/exports.txt --update
