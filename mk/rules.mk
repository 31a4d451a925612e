# Pattern rules, dependency files, the flags stamps and the include root. Read last, so that
# ALL_OBJS, ALL_LINKED and CHECKS are complete: every fragment only appends to them.

# Depends on this file so a tree built before a link was added gets it.
$(INCLUDE_STAMP): mk/rules.mk
	@mkdir -p $(INCLUDE_ROOT)
	$(Q)ln -sfn $(CURDIR)/runtime $(INCLUDE_ROOT)/runtime
	$(Q)ln -sfn $(CURDIR)/runtime/extension $(INCLUDE_ROOT)/extension
	$(Q)ln -sfn $(CURDIR)/runtime/devtools $(INCLUDE_ROOT)/devtools
	@touch $@

# The stamps are rewritten while the makefiles are read, and only when the flags differ, so
# `make -q` right after a build has nothing to do.
FLAGS_LINE := $(CXX) $(ET_CPPFLAGS) $(CPPFLAGS) $(ET_CXXFLAGS) $(ET_TREE_CXXFLAGS) $(CXXFLAGS)
LINK_LINE := $(CXX) $(ET_LDFLAGS) $(LDFLAGS) $(LDLIBS) $(SHLIB_DEFS)
ifneq ($(FLAGS_LINE),$(file <$(FLAGS_STAMP)))
  $(shell mkdir -p $(O))
  $(file >$(FLAGS_STAMP),$(FLAGS_LINE))
endif
ifneq ($(LINK_LINE),$(file <$(LINK_STAMP)))
  $(shell mkdir -p $(O))
  $(file >$(LINK_STAMP),$(LINK_LINE))
endif

# Every object, linked output and check waits for the dependency step (mk/deps.mk), so that
# under -j nothing starts before it has finished.
$(ALL_OBJS): $(FLAGS_STAMP) | $(INCLUDE_STAMP) $(DEPS_STAMP) $(GENERATED_HEADERS)
$(ALL_LINKED): $(LINK_STAMP)
$(addprefix check-,$(CHECKS)): | $(DEPS_STAMP)

# ET_OBJS_FROM=<tree>: take every object from that tree, which has built it already with the
# same flags, instead of compiling it again (never building into that tree: it has no rule
# here). The static wheel check (test/wheel/wheelcheck.py) archives the main tree's objects
# this way: no compile flag depends on SHARED. Copies, not links, so their times are this
# tree's.
#
# ET_TEST_OBJS_FROM=<tree>: the same for the tests' own objects only ($(O)/test/...; the shorter
# stem makes this rule win over the compile rule below). The ASan+UBSan tree links the main
# tree's test objects with its own instrumented libraries (mk/test-sanitize.mk).
ifneq ($(ET_TEST_OBJS_FROM),)
$(O)/test/%.o: $(ET_TEST_OBJS_FROM)/test/%.o
	$(quiet) CP $@
	@mkdir -p $(@D)
	$(Q)cp -f $< $@
endif
ifneq ($(ET_OBJS_FROM),)
$(O)/%.o: $(ET_OBJS_FROM)/%.o
	$(quiet) CP $@
	@mkdir -p $(@D)
	$(Q)cp -f $< $@
else
$(O)/%.o: %.cpp
	$(quiet) CXX $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_CPPFLAGS) $(CPPFLAGS) $(ET_CXXFLAGS) $(ET_TREE_CXXFLAGS) $(CXXFLAGS) $(ET_DEPFLAGS) -c $< -o $@
endif

-include $(ALL_OBJS:.o=.d)
