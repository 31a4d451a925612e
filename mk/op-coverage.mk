# Operator coverage against upstream ExecuTorch (SHARED=1 only: the lister dlopens the kernel
# library). `make op-coverage` prints and writes $(O)/op-coverage.md: which upstream operators
# (test/kernels/upstream_ops.txt) libexecutorch_kernels.so.1 registers, with the dtypes their
# goldens test, which are missing, and which are NotSupported by design
# (test/kernels/op_not_supported.txt). It fails when a registered operator has no golden case.
# `make update-op-coverage` copies the report to docs/op-coverage.md.
ifeq ($(SHARED),1)
OPCOV_LIST_OPS := $(O)/test/kernels/list_ops
OPCOV_LIST_OPS_OBJ := $(O)/test/kernels/list_ops.o
OPCOV_REPORT := $(O)/op-coverage.md
OPCOV_RUN = python3 test/kernels/op_coverage.py --list-ops $(OPCOV_LIST_OPS) \
  --kernels-lib $(KERNELS_REAL) --report $(OPCOV_REPORT)
ALL_OBJS += $(OPCOV_LIST_OPS_OBJ)
ALL_LINKED += $(OPCOV_LIST_OPS)

$(OPCOV_LIST_OPS): $(OPCOV_LIST_OPS_OBJ) $(RT_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(OPCOV_LIST_OPS_OBJ) $(RT_LINK) \
	  -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../../lib' $(LDLIBS)

.PHONY: op-coverage update-op-coverage check-op-coverage
op-coverage: $(OPCOV_LIST_OPS) $(KERNELS_LIBS)
	$(OPCOV_RUN)

update-op-coverage: op-coverage
	cp $(OPCOV_REPORT) docs/op-coverage.md

CHECKS += op-coverage
check-op-coverage: $(OPCOV_LIST_OPS) $(KERNELS_LIBS)
	@$(RUN_CHECK) op-coverage $(OPCOV_RUN)
endif
