# libexecutorch.so.1 (SHARED=1, default) or libexecutorch.a (SHARED=0): the runtime, the one
# process-wide kernel and backend registry, and the extensions (Module, tensors, loaders).

# Everything under runtime/ except the kernel library, the tools and the schema sources.
RT_SRCS := $(sort $(shell find runtime -name '*.cpp' \
             -not -path 'runtime/kernels/*' -not -path 'runtime/tools/*' -not -path 'runtime/schema/*'))
RT_OBJS := $(RT_SRCS:%.cpp=$(O)/%.o)

# FlatBuffers readers generated from our schema (runtime/schema/*.fbs) land in $(O)/gen.
RT_SCHEMAS := $(wildcard runtime/schema/*.fbs)
RT_SCHEMA_HEADERS := $(RT_SCHEMAS:runtime/schema/%.fbs=$(O)/gen/executorch_schema/%_generated.h)
GENERATED_HEADERS += $(RT_SCHEMA_HEADERS)

# Each header also depends on every schema: program.fbs and flat_tensor.fbs include
# scalar_type.fbs. The runtime reads through the generated accessors and flatbuffers::Verifier;
# the object API and mutators (--gen-object-api --gen-mutable) are for the tests' small writer.
$(O)/gen/executorch_schema/%_generated.h: runtime/schema/%.fbs $(RT_SCHEMAS) mk/runtime.mk | $(DEPS_STAMP)
	$(quiet) FLATC $@
	@mkdir -p $(@D)
	$(Q)flatc --cpp --scoped-enums --gen-object-api --gen-mutable -I runtime/schema -o $(@D) $<

RT_SONAME := libexecutorch.so.$(VERSION_MAJOR)
RT_REAL := $(O)/lib/libexecutorch.so.$(VERSION)
RT_SONAME_LINK := $(O)/lib/$(RT_SONAME)
RT_DEV_LINK := $(O)/lib/libexecutorch.so
RT_STATIC := $(O)/lib/libexecutorch.a

ifeq ($(SHARED),1)
RT_LIBS := $(RT_REAL) $(RT_SONAME_LINK) $(RT_DEV_LINK)
# How a program or test links the runtime: scoped --no-as-needed so registration-only
# consumers keep it, and a $ORIGIN-relative RUNPATH set by the consumer's own rule.
RT_LINK = -L$(O)/lib -Wl,--push-state,--no-as-needed -lexecutorch -Wl,--pop-state
else
RT_LIBS := $(RT_STATIC)
# Static consumers must take every object: registration runs from static initializers.
RT_LINK = -Wl,--whole-archive $(RT_STATIC) -Wl,--no-whole-archive -ldl
endif

ALL_OBJS += $(RT_OBJS)
ALL_TARGETS += $(RT_LIBS)

# -z defs: the runtime resolves every symbol itself; the map fixes what it exports.
$(RT_REAL): $(RT_OBJS) runtime.map
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) -shared -Wl,-soname,$(RT_SONAME) -Wl,--version-script=runtime.map \
	  -Wl,-z,defs -Wl,--no-undefined-version -Wl,--enable-new-dtags \
	  $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(RT_OBJS) -ldl $(LDLIBS)

$(RT_SONAME_LINK): $(RT_REAL)
	$(Q)ln -sfn $(notdir $<) $@

$(RT_DEV_LINK): $(RT_SONAME_LINK)
	$(Q)ln -sfn $(notdir $<) $@

$(RT_STATIC): $(RT_OBJS)
	$(quiet) AR $@
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
