# The etdump unit group runs zoo models, so it links the kernel library (like kernels_*).
UNIT_etdump_EXTRA_LIBS = $(KERNELS_LINK)
UNIT_etdump_EXTRA_DEPS = $(KERNELS_LIBS)
$(O)/test/unit/etdump/test_etdump: $(KERNELS_LIBS)

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
