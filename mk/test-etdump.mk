# The etdump unit group runs zoo models, so it links the kernel library (like kernels_*), and
# the XNNPACK backend for the delegate's per-node events.
UNIT_etdump_EXTRA_LIBS = $(XNNPACK_LINK) $(KERNELS_LINK)
UNIT_etdump_EXTRA_DEPS = $(XNNPACK_LIBS) $(KERNELS_LIBS)
$(O)/test/unit/etdump/test_etdump: $(XNNPACK_LIBS) $(KERNELS_LIBS)

# check-tools-etdump: et_run --etdump writes a file that verifies (test/tools-tests/
# et_run_etdump.sh, with etdump_verify reading it through our schema copy).
ETDUMP_VERIFY := $(O)/test/tools-tests/etdump_verify
ALL_OBJS += $(O)/test/tools-tests/etdump_verify.o
ALL_LINKED += $(ETDUMP_VERIFY)
$(ETDUMP_VERIFY): $(O)/test/tools-tests/etdump_verify.o
	$(quiet) LD $@
	$(Q)$(CXX) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)
CHECKS += tools-etdump
.PHONY: check-tools-etdump
check-tools-etdump: $(TOOLS_ET_RUN) $(ETDUMP_VERIFY)
	@$(RUN_CHECK) tools-etdump sh test/tools-tests/et_run_etdump.sh $(TOOLS_ET_RUN) $(ETDUMP_VERIFY) \
	  test/fixtures/zoo $(O)/test/tools-tests/etdump

# check-devtools: upstream's executorch.devtools.Inspector reads what our et_run --etdump
# writes, with an ETRecord from upstream's exporter (test/devtools/check_inspector.py). It
# needs the zoo venv (torch + executorch; `make zoo-venv`, $(O)/zoo-venv); without it the
# check says it was skipped and counts as neither passed nor failed.
CHECKS += devtools
.PHONY: check-devtools
check-devtools: $(TOOLS_ET_RUN)
	@if [ -f '$(ZOO_STAMP)' ]; then \
	  $(RUN_CHECK) devtools $(ZOO_VENV)/bin/python test/devtools/check_inspector.py \
	    $(TOOLS_ET_RUN) $(O)/test/devtools; \
	else \
	  mkdir -p $(CHECK_DIR); echo "0 0" >$(CHECK_DIR)/devtools.result; \
	  printf '  %-7s %s\n' SKIP "devtools: not run (no zoo venv at $(ZOO_VENV); make zoo-venv)"; \
	fi
