# check-compat: the upstream-style consumer programs in test/sdk/compat/ (a Module
# example, the Tensor API, the low-level Program/Method walkthrough, an executor-runner
# style program, a custom backend, a thread pool user, a greedy LLM loop (portable and XNNPACK-lowered), a bundled-program
# runner) compiled the way a client compiles them, against the build's include root and
# library, then run on the zoo fixtures. The bundled-program runner and the LLM loop run real
# models, so they also link the kernel library.

COMPAT_DIR := $(O)/test/sdk/compat
COMPAT_ZOO ?= test/fixtures/zoo
ifeq ($(SHARED),1)
COMPAT_LINK :=
else
COMPAT_LINK = $(RT_LINK) -pthread
endif
# The LLM example also needs the kernel and XNNPACK backend libraries (run.sh's default links
# the shared ones).
COMPAT_LLM_LINK = $(if $(filter 1,$(SHARED)),,$(XNNPACK_LINK) $(KERNELS_LINK) $(RT_LINK) -pthread)

CHECKS += compat
.PHONY: check-compat
check-compat: $(RT_LIBS) $(KERNELS_LIBS) $(XNNPACK_LIBS) | $(INCLUDE_STAMP)
	@$(RUN_CHECK) compat env CXX='$(CXX)' COMPAT_LLM_LINK='$(COMPAT_LLM_LINK)' KERNELS_LINK='$(KERNELS_LINK)' sh test/sdk/compat/run.sh $(COMPAT_DIR) \
	  $(abspath $(O)/include) $(abspath $(O)/lib) $(COMPAT_ZOO) $(COMPAT_LINK)
