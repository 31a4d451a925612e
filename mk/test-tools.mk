# check-tools: et_run end to end on zoo fixtures, broken files and mismatched .npy inputs
# (test/tools-tests/et_run.sh).

CHECKS += tools
.PHONY: check-tools
check-tools: $(TOOLS_ET_RUN)
	@$(RUN_CHECK) tools sh test/tools-tests/et_run.sh $(or $(CROSS_ET_RUN),$(TOOLS_ET_RUN)) test/fixtures/zoo \
	  $(O)/test/tools-tests
