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
