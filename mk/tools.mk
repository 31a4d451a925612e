# Command-line tools: $(O)/bin/et_run (runtime/tools/et_run/), $(O)/bin/et_generate
# (runtime/tools/et_generate/: token generation with an LLM program), and `make run`, which builds
# everything and runs et_run on the bundled MobileNetV2-shaped zoo model.
#
# Each tool links libexecutorch.so.1 and, when the kernel library is part of the build
# (mk/kernels.mk sets KERNELS_LINK), libexecutorch_kernels.so.1 under a scoped
# --no-as-needed: it references no symbol of the kernels library, whose static initializers
# register the kernels. RUNPATH $ORIGIN/../lib finds both in $(O)/lib.

ifneq ($(KERNELS_LINK),)
TOOLS_KERNELS_LINK = $(KERNELS_LINK)
TOOLS_KERNELS_LIBS = $(KERNELS_LIBS)
else
TOOLS_KERNELS_LINK :=
TOOLS_KERNELS_LIBS :=
endif
# The XNNPACK backend (mk/backend-xnnpack.mk), linked the same way: it registers itself.
ifneq ($(XNNPACK_LINK),)
TOOLS_KERNELS_LINK += $(XNNPACK_LINK)
TOOLS_KERNELS_LIBS += $(XNNPACK_LIBS)
endif

# $(call tool,VAR,name): $(O)/bin/<name> from runtime/tools/<name>/*.cpp; defines TOOLS_<VAR>.
define tool
TOOLS_$(1)_SRCS := $$(sort $$(wildcard runtime/tools/$(2)/*.cpp))
TOOLS_$(1)_OBJS := $$(TOOLS_$(1)_SRCS:%.cpp=$(O)/%.o)
TOOLS_$(1) := $(O)/bin/$(2)
ALL_OBJS += $$(TOOLS_$(1)_OBJS)
ALL_TARGETS += $$(TOOLS_$(1))
ALL_LINKED += $$(TOOLS_$(1))
$$(TOOLS_$(1)_OBJS): mk/tools.mk
$$(TOOLS_$(1)): $$(TOOLS_$(1)_OBJS) $$(RT_LIBS) $$(TOOLS_KERNELS_LIBS) mk/tools.mk
	$$(quiet) LD $$@
	@mkdir -p $$(@D)
	$$(Q)$$(CXX) $$(ET_LDFLAGS) $$(LDFLAGS) -o $$@ $$(TOOLS_$(1)_OBJS) \
	  $$(TOOLS_KERNELS_LINK) $$(RT_LINK) -Wl,--enable-new-dtags -Wl,-rpath,'$$$$ORIGIN/../lib' \
	  $$(LDLIBS)
endef
$(eval $(call tool,ET_RUN,et_run))
$(eval $(call tool,ET_GENERATE,et_generate))

.PHONY: tools run
tools: $(TOOLS_ET_RUN) $(TOOLS_ET_GENERATE)

RUN_MODEL ?= test/fixtures/zoo/mobilenet_v2.pte
RUN_ARGS ?= --iterations 20 --warmup 2 --top 5
run: all
	$(TOOLS_ET_RUN) $(RUN_MODEL) $(RUN_ARGS)
