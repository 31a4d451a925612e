# The CPU compute core of the kernel library (runtime/kernels/compute/: SGEMM, convolution,
# elementwise helpers) and its GoogleTest group test/unit/compute/. Included by mk/check.mk
# before the unit groups are defined; rules.mk is read before this file.
#
# KERNELS_COMPUTE_OBJS is what the kernel library (mk/kernels.mk, later) links in. Each ISA
# variant is its own translation unit, named *_avx2.cpp / *_avx512.cpp, and only those get the
# -m flags: the rest of the code stays baseline x86-64 and picks a variant at run time.

KERNELS_COMPUTE_SRCS := $(sort $(wildcard runtime/kernels/compute/*.cpp))
KERNELS_COMPUTE_OBJS := $(KERNELS_COMPUTE_SRCS:%.cpp=$(O)/%.o)
ALL_OBJS += $(KERNELS_COMPUTE_OBJS)

KERNELS_COMPUTE_ISA_AVX2 := -mavx2 -mfma
KERNELS_COMPUTE_ISA_AVX512 := -mavx512f -mavx512vl -mavx512bw -mavx2 -mfma
# The hot loops want full unrolling of the fixed-size register tiles (-O3); -O3 also lets the
# baseline TU's portable loops vectorize.
$(O)/runtime/kernels/compute/%_avx2.o: ET_CXXFLAGS += $(KERNELS_COMPUTE_ISA_AVX2) -O3
$(O)/runtime/kernels/compute/%_avx512.o: ET_CXXFLAGS += $(KERNELS_COMPUTE_ISA_AVX512) -O3
$(O)/runtime/kernels/compute/%_baseline.o: ET_CXXFLAGS += -O3

# rules.mk is read before this file, so give these objects its prerequisites here. The ISA
# flags above are not in the flags stamp, so a change to this file rebuilds the objects.
$(KERNELS_COMPUTE_OBJS): $(FLAGS_STAMP) mk/test-compute.mk | $(INCLUDE_STAMP) $(DEPS_STAMP)
-include $(KERNELS_COMPUTE_OBJS:.o=.d)

# The unit group links the objects directly (they are hidden-visibility internals, not part of
# libexecutorch). check.mk's link rule lists only the group's own objects as prerequisites.
UNIT_compute_EXTRA_LIBS := $(KERNELS_COMPUTE_OBJS)
UNIT_compute_TEST_OBJS := $(patsubst %.cpp,$(O)/%.o,$(wildcard test/unit/compute/*.cpp))
$(O)/test/unit/compute/test_compute: $(KERNELS_COMPUTE_OBJS)
$(UNIT_compute_TEST_OBJS): $(FLAGS_STAMP) | $(INCLUDE_STAMP) $(DEPS_STAMP)
-include $(UNIT_compute_TEST_OBJS:.o=.d)


# The ISA translation units must define nothing the linker could share with baseline code: a
# weak/COMDAT symbol (an out-of-line inline function or template) emitted there with AVX
# instructions could be picked for every caller and crash a CPU without AVX. Only their
# constant descriptor tables may be global.
KERNELS_COMPUTE_ISA_OBJS := $(filter %_avx2.o %_avx512.o,$(KERNELS_COMPUTE_OBJS))
CHECKS += compute-isa-symbols
.PHONY: check-compute-isa-symbols
check-compute-isa-symbols: $(KERNELS_COMPUTE_ISA_OBJS)
	@$(RUN_CHECK) compute-isa-symbols sh -c \
	  'out=$$(nm $(KERNELS_COMPUTE_ISA_OBJS) | grep -E " [uvVwW] "); \
	   if [ -n "$$out" ]; then echo "shared symbols in ISA objects:"; echo "$$out"; exit 1; fi'
