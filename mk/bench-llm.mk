# make bench-llm: LLM prefill/decode tokens per second, ours against upstream's runtime on the
# same export_llama programs, one per recipe of test/zoo/export_llm.py's VARIANTS (portable,
# XNNPACK fp32, XNNPACK 8da4w; bench/llm/llm_bench.py; writes bench/LLM_RESULTS.md;
# BENCH_LLM_ARGS="--variants NAME..." picks some). The models are exported at bench time
# under $(O)/bench/llm/ in the zoo venv (BENCH_VENV, mk/bench-harness.mk); our side runs the
# staged Python package.
.PHONY: bench-llm
bench-llm: python $(BENCH_VENV_DEP)
	@test -x $(BENCH_VENV)/bin/python || { echo "no venv at $(BENCH_VENV) (make zoo-venv)" >&2; exit 1; }
	$(PYTHON) bench/llm/llm_bench.py --build $(O) --venv $(BENCH_VENV) $(BENCH_LLM_ARGS)
