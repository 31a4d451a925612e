# libexecutorch.so.1 (SHARED=1, default) or libexecutorch.a (SHARED=0): the runtime, the one
# process-wide kernel and backend registry, and the extensions (Module, tensors, loaders).

# Everything under runtime/ except the kernel library, the backend libraries (runtime/backends,
# mk/backend-*.mk), the tools and the schema sources.
RT_SRCS := $(sort $(shell find runtime -name '*.cpp' \
             -not -path 'runtime/kernels/*' -not -path 'runtime/tools/*' -not -path 'runtime/schema/*' \
             -not -path 'runtime/backends/*'))
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

# -z defs (shared_lib): the runtime resolves every symbol itself; the map fixes what it exports.
RT_LINK_ARGS := -ldl
$(eval $(call shared_lib,RT,executorch,runtime.map))
# A static consumer also needs what the runtime itself links.
ifneq ($(SHARED),1)
RT_LINK += -ldl
endif
