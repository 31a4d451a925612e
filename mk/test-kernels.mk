# Tests of the CPU kernel library. Included by mk/check.mk before the unit groups are defined
# (mk/kernels.mk, read earlier, defines KERNELS_LIBS and KERNELS_LINK).
#
# Every unit group named kernels_* links the kernel library (scoped --no-as-needed, or the
# whole archive with SHARED=0) and depends on it. The goldens it checks are
# test/fixtures/kernels (written by test/kernels/gen_goldens.py in the zoo venv).

KERNELS_UNIT_GROUPS := $(filter kernels_%,$(notdir $(patsubst %/,%,$(dir $(wildcard test/unit/*/*.cpp)))))
$(foreach g,$(KERNELS_UNIT_GROUPS),$(eval UNIT_$(g)_EXTRA_LIBS = $$(KERNELS_LINK)))
$(foreach g,$(KERNELS_UNIT_GROUPS),$(eval UNIT_$(g)_EXTRA_DEPS = $$(KERNELS_LIBS)))
$(foreach g,$(KERNELS_UNIT_GROUPS),$(eval $(O)/test/unit/$(g)/test_$(g): $$(KERNELS_LIBS)))

# --as-needed demonstration (SHARED=1 only): the same program linked with a plain
# --as-needed drops libexecutorch_kernels.so.1 (it references none of its symbols), so
# the operators are missing at run time; with KERNELS_LINK they are present.
ifeq ($(SHARED),1)
KERNELS_ASNEEDED_DIR := $(O)/test/kernels
KERNELS_ASNEEDED_OBJ := $(O)/test/kernels/as_needed_main.o
KERNELS_ASNEEDED_BAD := $(KERNELS_ASNEEDED_DIR)/as_needed_dropped
KERNELS_ASNEEDED_GOOD := $(KERNELS_ASNEEDED_DIR)/as_needed_kept
ALL_OBJS += $(KERNELS_ASNEEDED_OBJ)
ALL_LINKED += $(KERNELS_ASNEEDED_BAD) $(KERNELS_ASNEEDED_GOOD)

$(KERNELS_ASNEEDED_BAD): $(KERNELS_ASNEEDED_OBJ) $(KERNELS_LIBS) $(RT_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(KERNELS_ASNEEDED_OBJ) -Wl,--as-needed \
	  -L$(O)/lib -lexecutorch_kernels -lexecutorch -Wl,--no-as-needed \
	  -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../../lib' $(LDLIBS)

$(KERNELS_ASNEEDED_GOOD): $(KERNELS_ASNEEDED_OBJ) $(KERNELS_LIBS) $(RT_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(KERNELS_ASNEEDED_OBJ) -Wl,--as-needed \
	  $(KERNELS_LINK) $(RT_LINK) -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../../lib' $(LDLIBS)

CHECKS += kernels-as-needed
.PHONY: check-kernels-as-needed
check-kernels-as-needed: $(KERNELS_ASNEEDED_BAD) $(KERNELS_ASNEEDED_GOOD)
	@$(RUN_CHECK) kernels-as-needed sh test/kernels/check_as_needed.sh \
	  $(KERNELS_ASNEEDED_BAD) $(KERNELS_ASNEEDED_GOOD)
endif
