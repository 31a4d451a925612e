# make bench-sgemm: single-core FMA peak, SGEMM 512^3 per ISA level and a naive reference,
# plus convolution shapes and, with BENCH_ARGS="--shapes bench/harness/data/zoo_shapes.txt", the
# zoo's own shapes; prints tables. Not part of `make check` (timing on a shared CI
# machine is noise, and it takes a few seconds).

BENCH_SGEMM_SRCS := bench/sgemm_bench.cpp bench/shape_file_bench.cpp bench/fma_peak_avx2.cpp \
                    bench/fma_peak_avx512.cpp
# The AVX peak units exist on x86-64 only (the NEON peak needs no flags: bench/sgemm_bench.cpp).
ifneq ($(ARCH),x86_64)
BENCH_SGEMM_SRCS := $(filter-out bench/fma_peak_avx%.cpp,$(BENCH_SGEMM_SRCS))
endif
BENCH_SGEMM_OBJS := $(BENCH_SGEMM_SRCS:%.cpp=$(O)/%.o)
BENCH_SGEMM_BIN := $(O)/bench/sgemm_bench
ALL_OBJS += $(BENCH_SGEMM_OBJS)

$(O)/bench/fma_peak_avx2.o: ET_CXXFLAGS += $(KERNELS_COMPUTE_ISA_AVX2)
$(O)/bench/fma_peak_avx512.o: ET_CXXFLAGS += $(KERNELS_COMPUTE_ISA_AVX512)
$(BENCH_SGEMM_OBJS): mk/bench-compute.mk
ALL_LINKED += $(BENCH_SGEMM_BIN)

# The compute core splits work on the runtime's thread pool, so it links the runtime.
$(BENCH_SGEMM_BIN): $(BENCH_SGEMM_OBJS) $(KERNELS_COMPUTE_OBJS) $(RT_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(BENCH_SGEMM_OBJS) $(KERNELS_COMPUTE_OBJS) \
	  $(RT_LINK) -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../lib' $(LDLIBS)

.PHONY: bench-sgemm
bench-sgemm: $(BENCH_SGEMM_BIN)
	$(BENCH_SGEMM_BIN) $(BENCH_ARGS)
