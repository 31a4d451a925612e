# Command-line tools: $(O)/bin/et_run (runtime/tools/et_run/), and `make run`, which builds
# everything and runs et_run on the bundled MobileNetV2-shaped zoo model.
#
# et_run links libexecutorch.so.1 and, when the kernel library is part of the build
# (mk/kernels.mk sets KERNELS_LINK), libexecutorch_kernels.so.1 under a scoped
# --no-as-needed: it references no symbol of the kernels library, whose static initializers
# register the kernels. RUNPATH $ORIGIN/../lib finds both in $(O)/lib.

TOOLS_ET_RUN_SRCS := $(sort $(wildcard runtime/tools/et_run/*.cpp))
TOOLS_ET_RUN_OBJS := $(TOOLS_ET_RUN_SRCS:%.cpp=$(O)/%.o)
TOOLS_ET_RUN := $(O)/bin/et_run

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

ALL_OBJS += $(TOOLS_ET_RUN_OBJS)
ALL_TARGETS += $(TOOLS_ET_RUN)

$(TOOLS_ET_RUN_OBJS): mk/tools.mk
ALL_LINKED += $(TOOLS_ET_RUN)

$(TOOLS_ET_RUN): $(TOOLS_ET_RUN_OBJS) $(RT_LIBS) $(TOOLS_KERNELS_LIBS) mk/tools.mk
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(TOOLS_ET_RUN_OBJS) \
	  $(TOOLS_KERNELS_LINK) $(RT_LINK) -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../lib' \
	  $(LDLIBS)

.PHONY: tools run
tools: $(TOOLS_ET_RUN)

RUN_MODEL ?= test/fixtures/zoo/mobilenet_v2.pte
RUN_ARGS ?= --iterations 20 --warmup 2 --top 5
run: all
	$(TOOLS_ET_RUN) $(RUN_MODEL) $(RUN_ARGS)
