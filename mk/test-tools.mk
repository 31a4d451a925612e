# check-tools: et_run end to end on zoo fixtures, broken files and mismatched .npy inputs
# (test/tools-tests/et_run.sh).

# Each tools check works in its own directory under $(O)/test/tools-tests: et_run.sh empties
# its directory first, and under -j the others (and etdump_verify) are built or run beside it.
CHECKS += tools
.PHONY: check-tools
check-tools: $(TOOLS_ET_RUN)
	@$(RUN_CHECK) tools sh test/tools-tests/et_run.sh $(or $(CROSS_ET_RUN),$(TOOLS_ET_RUN)) test/fixtures/zoo \
	  $(O)/test/tools-tests/et_run

# check-tools-generate: et_generate on the upstream-exported Llama of test/fixtures/llm
# (test/tools-tests/et_generate.sh): the greedy continuation equals upstream's runtime's.
CHECKS += tools-generate
.PHONY: check-tools-generate
check-tools-generate: $(TOOLS_ET_GENERATE)
	@$(RUN_CHECK) tools-generate sh test/tools-tests/et_generate.sh $(TOOLS_ET_GENERATE) \
	  test/fixtures/llm $(O)/test/tools-tests/et_generate
