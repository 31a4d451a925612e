# The side-by-side benchmark harness (bench/harness/). Included by the top Makefile's
# `include $(wildcard mk/bench-*.mk)`, after mk/check.mk.
#
#   make bench        full run: every zoo program on our C++ runtime (bench/harness/et_bench),
#                     our Python bindings, upstream's Python runtime and eager PyTorch (the last
#                     two in the zoo venv, created by `make zoo-venv` if missing), micro-benchmarks;
#                     writes bench/RESULTS.md, bench/latency.png and $(O)/bench/results.json;
#                     then the real-size section (see bench-realsize below).
#   make bench-realsize  only the real-size models (exported at bench time, never committed);
#                     writes their section of bench/RESULTS.md and bench/realsize.png.
#   make bench-realsize-rerender  the same section and chart again from the last run's
#                     $(O)/bench/realsize-results.json, measuring nothing.
#   make bench-quick  tiny iteration counts on a subset, no chart, output under $(O)/bench/quick/;
#                     runs in `make check`. Never creates the zoo venv: upstream/eager run only
#                     when $(BENCH_VENV) exists, else they print "skipped: no zoo venv".
# Knobs: BENCH_VENV (default $(O)/zoo-venv), BENCH_ARGS (extra bench.py arguments,
# e.g. --only mlp cnn, --sets 1, --cpu 0).

BENCH_HARNESS_BIN := $(O)/bench/harness/et_bench
BENCH_HARNESS_OBJS := $(O)/bench/harness/et_bench.o
BENCH_VENV ?= $(O)/zoo-venv
BENCH_PY := bench/harness/bench.py
BENCH_HARNESS_FILES := $(BENCH_PY) bench/harness/worker.py bench/harness/plot.py \
                       bench/harness/realsize_section.py bench/harness/plot_realsize.py
ALL_OBJS += $(BENCH_HARNESS_OBJS)

$(BENCH_HARNESS_OBJS): mk/bench-harness.mk
ALL_LINKED += $(BENCH_HARNESS_BIN)

# The driver links the runtime and (scoped --no-as-needed) the kernel library and the XNNPACK
# backend: it references no symbol of them, their static initializers register them.
$(BENCH_HARNESS_BIN): $(BENCH_HARNESS_OBJS) $(RT_LIBS) $(KERNELS_LIBS) $(XNNPACK_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(BENCH_HARNESS_OBJS) $(XNNPACK_LINK) $(KERNELS_LINK) $(RT_LINK) \
	  -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../../lib' $(LDLIBS)

# What a run needs of ours: the driver, the staged bindings (when mk/pybind.mk is there), and the
# benchmarks whose output the harness parses: compute (mk/bench-compute.mk), dispatch and
# load (mk/bench.mk).
BENCH_OURS := $(BENCH_HARNESS_BIN) $(if $(PY_OUTPUTS),python) \
              $(if $(BENCH_SGEMM_BIN),$(BENCH_SGEMM_BIN)) $(BENCH_RT_BINS)

# matplotlib (for the chart) goes into the zoo venv, pinned in bench/harness/requirements.txt.
# `make bench` creates the zoo venv when it is the default one ($(O)/zoo-venv, mk/zoo.mk); a
# BENCH_VENV elsewhere must exist already.
BENCH_PLOT_STAMP := $(BENCH_VENV)/.bench-plot-installed
BENCH_VENV_DEP := $(if $(and $(ZOO_STAMP),$(filter $(abspath $(ZOO_VENV)),$(abspath $(BENCH_VENV)))),$(ZOO_STAMP))
$(BENCH_PLOT_STAMP): bench/harness/requirements.txt | $(BENCH_VENV_DEP)
	@test -x $(BENCH_VENV)/bin/python || { echo "no venv at $(BENCH_VENV) (make zoo-venv)" >&2; exit 1; }
	@echo "  PIP     bench/harness/requirements.txt -> $(BENCH_VENV)"
	$(Q)$(BENCH_VENV)/bin/pip install --disable-pip-version-check -q -r bench/harness/requirements.txt
	$(Q)touch $@

.PHONY: bench bench-quick bench-harness
bench-harness: $(BENCH_HARNESS_BIN)

bench: $(BENCH_OURS) $(BENCH_PLOT_STAMP)
	$(PYTHON) $(BENCH_PY) --build $(O) --venv $(BENCH_VENV) --realsize $(BENCH_ARGS)

# The real-size section alone (bench/harness/realsize_section.py): exports the real-size models
# (bench/realsize/, cached under $(O)/bench/realsize/) and splices its tables into
# bench/RESULTS.md. BENCH_ARGS="--realsize-models resnet18 vit_tiny" narrows it.
.PHONY: bench-realsize
bench-realsize: $(BENCH_OURS) $(BENCH_PLOT_STAMP) | $(BENCH_VENV_DEP)
	$(PYTHON) $(BENCH_PY) --realsize-only --build $(O) --venv $(BENCH_VENV) $(BENCH_ARGS)

.PHONY: bench-realsize-rerender
bench-realsize-rerender: $(BENCH_PLOT_STAMP)
	$(PYTHON) $(BENCH_PY) --rerender --realsize-only --build $(O) --venv $(BENCH_VENV) $(BENCH_ARGS)

bench-quick: $(BENCH_OURS)
	$(PYTHON) $(BENCH_PY) --quick --build $(O) --venv $(BENCH_VENV) $(BENCH_ARGS)

# make check: the quick mode. mk/check.mk's `check` rule has already expanded its prerequisite
# list when this file is read, so the suite is added to it here; its recipe's summary reads
# $(CHECKS) later, when it runs, and so counts this one.
CHECKS += bench-quick
.PHONY: check-bench-quick
check: check-bench-quick
check-bench-quick: $(BENCH_OURS)
	@$(RUN_CHECK) bench-quick $(PYTHON) $(BENCH_PY) --quick --build $(O) --venv $(BENCH_VENV) $(BENCH_ARGS)
