# make bench-runtime: the runtime's speed figures, not part of `make check`.
#   bench/dispatch_bench  ns per instruction of Method::execute on a generated chain of 1,000
#                         tiny KernelCalls, against a direct loop calling the same kernel
#   bench/load_bench      a generated ~20 MB .pte through MmapDataLoader + load_method: time,
#                         and whether the constants are used in place (pointer and RSS checks)
# BENCH_RUNTIME_ARGS=--quick gives the short mode.

BENCH_RT_SRCS := bench/dispatch_bench.cpp bench/load_bench.cpp
BENCH_RT_OBJS := $(BENCH_RT_SRCS:%.cpp=$(O)/%.o)
BENCH_RT_BINS := $(BENCH_RT_SRCS:%.cpp=$(O)/%)
ALL_OBJS += $(BENCH_RT_OBJS)

$(BENCH_RT_OBJS): mk/bench.mk
ALL_LINKED += $(BENCH_RT_BINS)

$(BENCH_RT_BINS): $(O)/bench/%: $(O)/bench/%.o $(RT_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $< $(RT_LINK) \
	  -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../lib' $(LDLIBS)

BENCH_RUNTIME_ARGS ?=
.PHONY: bench-runtime
bench-runtime: $(BENCH_RT_BINS)
	$(O)/bench/dispatch_bench $(BENCH_RUNTIME_ARGS)
	$(O)/bench/load_bench $(BENCH_RUNTIME_ARGS)
