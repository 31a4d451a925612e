# libexecutorch_kernels.so.1 (SHARED=1) or libexecutorch_kernels.a (SHARED=0): the CPU kernel
# library. Every runtime/kernels/**/*.cpp outside compute/ is compiled here; the compute core's
# objects come from mk/test-compute.mk (KERNELS_COMPUTE_OBJS, read later, so the link rule
# expands them in the second phase). The shared library links against libexecutorch.so.1 and
# exports nothing (runtime/kernels/kernels.map): its static initializers register the kernels.

KERNELS_SRCS := $(sort $(shell find runtime/kernels -name '*.cpp' -not -path 'runtime/kernels/compute/*'))
KERNELS_OBJS := $(KERNELS_SRCS:%.cpp=$(O)/%.o)
KERNELS_MAP := runtime/kernels/kernels.map

# The elementwise loops are written for auto-vectorization: -O3, and -fno-trapping-math so
# that selects on float compares (clamps, NaN/inf handling in detail/vec_math.h) can become
# vector blends. Results are unchanged (no fast-math); FP exception flags are not observable.
$(O)/runtime/kernels/ops/%.o $(O)/runtime/kernels/detail/%.o: ET_CXXFLAGS += -O3 -fno-trapping-math
$(KERNELS_OBJS): mk/kernels.mk

KERNELS_SONAME := libexecutorch_kernels.so.$(VERSION_MAJOR)
KERNELS_REAL := $(O)/lib/libexecutorch_kernels.so.$(VERSION)
KERNELS_SONAME_LINK := $(O)/lib/$(KERNELS_SONAME)
KERNELS_DEV_LINK := $(O)/lib/libexecutorch_kernels.so
KERNELS_STATIC := $(O)/lib/libexecutorch_kernels.a

ifeq ($(SHARED),1)
KERNELS_LIBS := $(KERNELS_REAL) $(KERNELS_SONAME_LINK) $(KERNELS_DEV_LINK)
# Consumers reference no symbol of the library, so --as-needed would drop it: keep it scoped
# --no-as-needed. Put it before $(RT_LINK).
KERNELS_LINK = -L$(O)/lib -Wl,--push-state,--no-as-needed -lexecutorch_kernels -Wl,--pop-state
else
KERNELS_LIBS := $(KERNELS_STATIC)
# Static consumers must take every object: registration runs from static initializers.
KERNELS_LINK = -Wl,--whole-archive $(KERNELS_STATIC) -Wl,--no-whole-archive
endif

ALL_OBJS += $(KERNELS_OBJS)
ALL_TARGETS += $(KERNELS_LIBS)

.SECONDEXPANSION:

$(KERNELS_REAL): $(KERNELS_OBJS) $$(KERNELS_COMPUTE_OBJS) $(KERNELS_MAP) $(RT_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) -shared -Wl,-soname,$(KERNELS_SONAME) -Wl,--version-script=$(KERNELS_MAP) \
	  -Wl,-z,defs -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN' \
	  $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(KERNELS_OBJS) $(KERNELS_COMPUTE_OBJS) \
	  -L$(O)/lib -lexecutorch $(LDLIBS)

$(KERNELS_SONAME_LINK): $(KERNELS_REAL)
	$(Q)ln -sfn $(notdir $<) $@

$(KERNELS_DEV_LINK): $(KERNELS_SONAME_LINK)
	$(Q)ln -sfn $(notdir $<) $@

$(KERNELS_STATIC): $(KERNELS_OBJS) $$(KERNELS_COMPUTE_OBJS)
	$(quiet) AR $@
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $(KERNELS_OBJS) $(KERNELS_COMPUTE_OBJS)

.PHONY: kernels
kernels: $(KERNELS_LIBS)
