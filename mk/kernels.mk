# libexecutorch_kernels.so.1 (SHARED=1) or libexecutorch_kernels.a (SHARED=0): the CPU kernel
# library, ops (runtime/kernels/ops, detail) and the compute core they run on
# (runtime/kernels/compute: SGEMM, convolution, vectorized math). The shared library links
# against libexecutorch.so.1 and exports nothing (runtime/kernels/kernels.map): its static
# initializers register the kernels.

KERNELS_OPS_SRCS := $(sort $(shell find runtime/kernels -name '*.cpp' -not -path 'runtime/kernels/compute/*'))
KERNELS_OPS_OBJS := $(KERNELS_OPS_SRCS:%.cpp=$(O)/%.o)

# The compute core. Each ISA variant is its own translation unit, named *_<isa>.cpp, and only
# those get the ISA's flags: the rest of the code (drivers, *_baseline.cpp) stays baseline for
# the target and picks a variant at run time (compute/isa.h). Which variants exist depends on
# the target ($(ARCH)): x86-64 builds *_avx2.cpp and *_avx512.cpp with their -m flags; aarch64
# builds *_neon.cpp (NEON is part of the AArch64 baseline) and *_neondot.cpp (SDOT). A variant
# of another architecture is never compiled. The compute tests and the SGEMM benchmark link
# these objects directly (hidden-visibility internals, not exported by the library).
KERNELS_COMPUTE_ISA_SUFFIXES_x86_64 := avx2 avx512
KERNELS_COMPUTE_ISA_SUFFIXES_aarch64 := neon neondot
KERNELS_COMPUTE_ISA_SUFFIXES := $(KERNELS_COMPUTE_ISA_SUFFIXES_$(ARCH))
KERNELS_COMPUTE_ALL_SRCS := $(sort $(wildcard runtime/kernels/compute/*.cpp))
KERNELS_COMPUTE_ISA_SRCS := $(filter $(foreach i,$(KERNELS_COMPUTE_ISA_SUFFIXES),%_$(i).cpp), \
                              $(KERNELS_COMPUTE_ALL_SRCS))
KERNELS_COMPUTE_SRCS := $(filter-out $(foreach i,avx2 avx512 neon neondot,%_$(i).cpp),$(KERNELS_COMPUTE_ALL_SRCS)) \
                        $(KERNELS_COMPUTE_ISA_SRCS)
KERNELS_COMPUTE_OBJS := $(KERNELS_COMPUTE_SRCS:%.cpp=$(O)/%.o)
KERNELS_COMPUTE_ISA_OBJS := $(KERNELS_COMPUTE_ISA_SRCS:%.cpp=$(O)/%.o)
KERNELS_COMPUTE_ISA_AVX2 := -mavx2 -mfma
KERNELS_COMPUTE_ISA_AVX512 := -mavx512f -mavx512vl -mavx512bw -mavx2 -mfma

# The elementwise loops are written for auto-vectorization: -O3, and -fno-trapping-math so
# that selects on float compares (clamps, NaN/inf handling in detail/vec_math.h) can become
# vector blends. Results are unchanged (no fast-math); FP exception flags are not observable.
# -ffp-contract=off: where the target has fused multiply-add (AArch64), GCC would otherwise fuse
# a * b + c in some loops and not in others, so one op's result would depend on which of its
# paths (contiguous, broadcast, channels-last, vector or scalar) ran; unfused, every path and
# every target rounds the same way.
$(O)/runtime/kernels/ops/%.o $(O)/runtime/kernels/detail/%.o: ET_CXXFLAGS += -O3 -fno-trapping-math \
                                                                 -ffp-contract=off
# The hot loops want full unrolling of the fixed-size register tiles (-O3); -O3 also lets the
# baseline TU's portable loops vectorize.
$(O)/runtime/kernels/compute/%_avx2.o: ET_CXXFLAGS += $(KERNELS_COMPUTE_ISA_AVX2) -O3
$(O)/runtime/kernels/compute/%_avx512.o: ET_CXXFLAGS += $(KERNELS_COMPUTE_ISA_AVX512) -O3
$(O)/runtime/kernels/compute/%_baseline.o: ET_CXXFLAGS += -O3
# AArch64: Advanced SIMD is part of the base architecture, so the neon units need no -m flag;
# the ISO -std=c++17 turns off FMA contraction, which the auto-vectorized loops of the neon
# units (conv_kernels_impl.inc) get back here. The dot-product units add SDOT.
$(O)/runtime/kernels/compute/%_neon.o: ET_CXXFLAGS += -O3 -ffp-contract=fast
$(O)/runtime/kernels/compute/%_neondot.o: ET_CXXFLAGS += -march=armv8.2-a+dotprod -O3
# These flags are not in the flags stamp: a change to this file rebuilds the objects.
KERNELS_OBJS := $(KERNELS_OPS_OBJS) $(KERNELS_COMPUTE_OBJS)
$(KERNELS_OBJS): mk/kernels.mk

KERNELS_LINK_ARGS = -Wl,-rpath,'$$ORIGIN' -L$(O)/lib -lexecutorch
KERNELS_LINK_DEPS = $(RT_LIBS)
$(eval $(call shared_lib,KERNELS,executorch_kernels,runtime/kernels/kernels.map))

.PHONY: kernels
kernels: $(KERNELS_LIBS)
