# libexecutorch_backend_xnnpack.so.1 (SHARED=1) or libexecutorch_backend_xnnpack.a (SHARED=0):
# the backend named "XnnpackBackend" (runtime/backends/xnnpack/). It interprets the XNNPACK delegate
# payload of upstream-lowered programs itself (no XNNPACK library) and runs the graph on the
# compute core that libexecutorch_kernels.so.1 exports (docs/architecture.md says why). It
# exports nothing (runtime/backends/xnnpack/backend.map): its static initializer registers the backend.

XNNPACK_SRCS := $(sort $(wildcard runtime/backends/xnnpack/runtime/*.cpp))
XNNPACK_OBJS := $(XNNPACK_SRCS:%.cpp=$(O)/%.o)

# The payload's flatbuffer readers, generated from our copy of the schema.
XNNPACK_SCHEMA_HEADER := $(O)/gen/xnnpack_schema/schema_generated.h
GENERATED_HEADERS += $(XNNPACK_SCHEMA_HEADER)
$(XNNPACK_SCHEMA_HEADER): runtime/backends/xnnpack/serialization/schema.fbs mk/backend-xnnpack.mk | $(DEPS_STAMP)
	$(quiet) FLATC $@
	@mkdir -p $(@D)
	$(Q)flatc --cpp --scoped-enums --gen-object-api --gen-mutable -o $(@D) $<

# The elementwise loops are written for auto-vectorization, as the kernels' (mk/kernels.mk).
$(XNNPACK_OBJS): ET_CXXFLAGS += -O3 -fno-trapping-math
$(XNNPACK_OBJS): mk/backend-xnnpack.mk

XNNPACK_LINK_ARGS = -Wl,-rpath,'$$ORIGIN' -L$(O)/lib -lexecutorch_kernels -lexecutorch
XNNPACK_LINK_DEPS = $(RT_LIBS) $(KERNELS_LIBS)
$(eval $(call shared_lib,XNNPACK,executorch_backend_xnnpack,runtime/backends/xnnpack/backend.map))

.PHONY: backend-xnnpack
backend-xnnpack: $(XNNPACK_LIBS)

# make install and the wheel ship it next to the kernel library (mk/install.mk, mk/wheel.mk);
# the CMake package offers it as COMPONENTS xnnpack -> executorch::backend_xnnpack.
ifeq ($(SHARED),1)
INST_SHARED_LIBS += $(XNNPACK_REAL)
else
INST_STATIC_LIBS += $(XNNPACK_STATIC)
endif
