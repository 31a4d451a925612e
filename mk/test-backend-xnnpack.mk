# Tests of the XNNPACK backend (mk/backend-xnnpack.mk). Included by mk/check.mk after
# mk/test-kernels.mk, before the unit groups are defined.
#
# test/unit/backend_xnnpack/ links the backend and the kernel library (its per-node tests
# compare each node with the portable kernel on the same data); kernels_zoo also links the
# backend, so the zoo's XNNPACK-lowered twins run against the same goldens as their originals.

UNIT_backend_xnnpack_EXTRA_LIBS = $(XNNPACK_LINK) $(KERNELS_LINK)
UNIT_backend_xnnpack_EXTRA_DEPS = $(XNNPACK_LIBS) $(KERNELS_LIBS)
$(O)/test/unit/backend_xnnpack/test_backend_xnnpack: $(XNNPACK_LIBS) $(KERNELS_LIBS)

UNIT_kernels_zoo_EXTRA_LIBS += $(XNNPACK_LINK)
UNIT_kernels_zoo_EXTRA_DEPS += $(XNNPACK_LIBS)
$(O)/test/unit/kernels_zoo/test_kernels_zoo: $(XNNPACK_LIBS)

# The registry group dlopens the backend library (test/unit/registry/plugin_test.cpp).
$(O)/test/unit/registry/test_registry: $(XNNPACK_LIBS)
