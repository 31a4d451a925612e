# Extra pieces of the BundledProgram tests (test/unit/bundled/), included by mk/check.mk.
# The fixtures (test/fixtures/bundled) run real models, so the group links the kernel library
# the same way the kernels_* groups do (mk/test-kernels.mk).
UNIT_bundled_EXTRA_LIBS = $(KERNELS_LINK)
UNIT_bundled_EXTRA_DEPS = $(KERNELS_LIBS)
$(O)/test/unit/bundled/test_bundled: $(KERNELS_LIBS)

# et_run --bundled end to end on the fixtures (test/tools-tests/et_run_bundled.sh).
CHECKS += tools-bundled
.PHONY: check-tools-bundled
check-tools-bundled: $(TOOLS_ET_RUN)
	@$(RUN_CHECK) tools-bundled sh test/tools-tests/et_run_bundled.sh $(TOOLS_ET_RUN) \
	  test/fixtures/bundled test/fixtures/zoo $(O)/test/tools-tests-bundled
