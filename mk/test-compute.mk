# The compute core's GoogleTest group test/unit/compute/ and the ISA symbol check. Included by
# mk/check.mk before the unit groups are defined.

# The group links the compute objects directly (hidden-visibility internals of the kernel
# library, see mk/kernels.mk).
UNIT_compute_EXTRA_LIBS := $(KERNELS_COMPUTE_OBJS)
$(O)/test/unit/compute/test_compute: $(KERNELS_COMPUTE_OBJS)

# The ISA translation units must define nothing the linker could share with baseline code: a
# weak/COMDAT symbol (an out-of-line inline function or template) emitted there with AVX
# instructions could be picked for every caller and crash a CPU without AVX. Only their
# constant descriptor tables may be global.
CHECKS += compute-isa-symbols
.PHONY: check-compute-isa-symbols
check-compute-isa-symbols: $(KERNELS_COMPUTE_ISA_OBJS)
	@$(RUN_CHECK) compute-isa-symbols sh -c \
	  'out=$$($(if $(KERNELS_COMPUTE_ISA_OBJS),$(NM) $(KERNELS_COMPUTE_ISA_OBJS),true) | grep -E " [uvVwW] "); \
	   if [ -n "$$out" ]; then echo "shared symbols in ISA objects:"; echo "$$out"; exit 1; fi'

# The eager-PyTorch goldens of the elementwise and zoo kernel groups, and the nn group's
# pooling checks against a reference loop, once per ISA level (ET_KERNELS_ISA, clamped to what
# the CPU has), so every vector variant meets them, not only the one the CPU picks.
CHECKS += kernels-goldens-per-isa
.PHONY: check-kernels-goldens-per-isa
KERNELS_GOLDENS_PER_ISA_BINS := $(O)/test/unit/kernels_elementwise/test_kernels_elementwise \
                                $(O)/test/unit/kernels_zoo/test_kernels_zoo \
                                $(O)/test/unit/kernels_nn/test_kernels_nn
check-kernels-goldens-per-isa: $(KERNELS_GOLDENS_PER_ISA_BINS)
	@$(RUN_CHECK) kernels-goldens-per-isa sh -c \
	  'for isa in baseline avx2 avx512; do for t in $(KERNELS_GOLDENS_PER_ISA_BINS); do \
	     ET_KERNELS_ISA=$$isa $$t --gtest_brief=1 || { echo "$$t failed at $$isa"; exit 1; }; \
	   done; done'
