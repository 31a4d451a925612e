# Pattern rules, quiet output, dependency files, the flags stamp and the include root.

ifeq ($(V),1)
  Q :=
  quiet = @:
else
  Q := @
  quiet = @printf '  %-7s %s\n'
endif

# The public include root: the project's sources are included exactly as users include the
# installed headers (<executorch/runtime/...>, <executorch/extension/...>).
INCLUDE_ROOT := $(O)/include/executorch
INCLUDE_STAMP := $(O)/include/.stamp
$(INCLUDE_STAMP):
	@mkdir -p $(INCLUDE_ROOT)
	$(Q)ln -sfn $(CURDIR)/runtime $(INCLUDE_ROOT)/runtime
	$(Q)ln -sfn $(CURDIR)/runtime/extension $(INCLUDE_ROOT)/extension
	@touch $@

# Changed compile flags rebuild every object. The stamp is rewritten while the makefile is
# read, and only when the flags differ, so `make -q` right after a build has nothing to do.
FLAGS_STAMP := $(O)/.flags
FLAGS_LINE := $(CXX) $(ET_CPPFLAGS) $(CPPFLAGS) $(ET_CXXFLAGS) $(CXXFLAGS)
ifneq ($(FLAGS_LINE),$(file <$(FLAGS_STAMP)))
  $(shell mkdir -p $(O))
  $(file >$(FLAGS_STAMP),$(FLAGS_LINE))
endif

$(ALL_OBJS): $(FLAGS_STAMP) | $(INCLUDE_STAMP) $(DEPS_STAMP) $(GENERATED_HEADERS)

$(O)/%.o: %.cpp
	$(quiet) CXX $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_CPPFLAGS) $(CPPFLAGS) $(ET_CXXFLAGS) $(CXXFLAGS) $(ET_DEPFLAGS) -c $< -o $@

.PHONY: FORCE
FORCE:

-include $(ALL_OBJS:.o=.d)
