# mk/zoo.mk: the model zoo, exported with the upstream ExecuTorch exporter.
#
# Included by the top Makefile. `make zoo` builds a separate venv under $(O)/zoo-venv with the
# exact pins of test/zoo/requirements.txt (torch 2.13.0+cpu from local disk, executorch from
# PyPI), then regenerates every fixture in test/fixtures/zoo/ from scratch and checks each one
# in upstream's Python runtime. Nothing else in the build needs this venv: `make check` only
# reads the committed fixtures. V=1 shows the commands and the full exporter output.

ZOO_ROOT := $(patsubst %/,%,$(dir $(abspath $(dir $(lastword $(MAKEFILE_LIST))))))
ZOO_BUILD := $(if $(O),$(O),build)
ZOO_VENV := $(ZOO_BUILD)/zoo-venv
ZOO_REQS := $(ZOO_ROOT)/test/zoo/requirements.txt
ZOO_SCRIPT := $(ZOO_ROOT)/test/zoo/export_zoo.py
ZOO_OUT := $(ZOO_ROOT)/test/fixtures/zoo
ZOO_STAMP := $(ZOO_VENV)/.installed
ZOO_LOG := $(ZOO_BUILD)/zoo.log
ZOO_PIPLOG := $(ZOO_BUILD)/zoo-venv.log
ZOO_PYTHON ?= python3
# torch 2.13.0+cpu is a file on local disk; pip's config usually points at it already.
ZOO_PIP_FLAGS ?= $(if $(wildcard /opt/wheels),--find-links /opt/wheels)

ifeq ($(V),1)
  ZOO_Q :=
  ZOO_QUIET :=
  ZOO_ERRLOG :=
else
  ZOO_Q := @
  ZOO_QUIET = >>$(ZOO_PIPLOG) 2>&1 || { tail -n 60 $(ZOO_PIPLOG); echo "  (full log: $(ZOO_PIPLOG))"; exit 1; }
  # stdout (the GEN/CHECK lines) stays on the terminal; warnings and tracebacks go to the log
  ZOO_ERRLOG = 2>>$(ZOO_LOG) || { tail -n 60 $(ZOO_LOG); echo "  (full log: $(ZOO_LOG))"; exit 1; }
endif

.PHONY: zoo zoo-venv zoo-verify zoo-clean-venv zoo-llm

$(ZOO_STAMP): $(ZOO_REQS)
	@echo "  VENV    $(ZOO_VENV)"
	$(ZOO_Q)mkdir -p $(ZOO_BUILD) && : > $(ZOO_PIPLOG)
	$(ZOO_Q)rm -rf $(ZOO_VENV)
	$(ZOO_Q)$(ZOO_PYTHON) -m venv $(ZOO_VENV) $(ZOO_QUIET)
	@echo "  PIP     $(notdir $(ZOO_REQS))"
	$(ZOO_Q)$(ZOO_VENV)/bin/pip install --disable-pip-version-check $(ZOO_PIP_FLAGS) -r $(ZOO_REQS) $(ZOO_QUIET)
	$(ZOO_Q)$(ZOO_VENV)/bin/pip check $(ZOO_QUIET)
	$(ZOO_Q)touch $@

zoo-venv: $(ZOO_STAMP)

zoo: $(ZOO_STAMP)
	@echo "  GEN     $(patsubst $(CURDIR)/%,%,$(ZOO_OUT))"
	$(ZOO_Q)mkdir -p $(ZOO_BUILD) && : > $(ZOO_LOG)
	$(ZOO_Q)PYTHONDONTWRITEBYTECODE=1 $(ZOO_VENV)/bin/python $(ZOO_SCRIPT) --out $(ZOO_OUT) $(ZOO_ERRLOG)

# Re-run only the upstream-runtime check on the committed fixtures (updates manifest.json).
zoo-verify: $(ZOO_STAMP)
	@echo "  VERIFY  $(patsubst $(CURDIR)/%,%,$(ZOO_OUT))"
	$(ZOO_Q)mkdir -p $(ZOO_BUILD) && : > $(ZOO_LOG)
	$(ZOO_Q)PYTHONDONTWRITEBYTECODE=1 $(ZOO_VENV)/bin/python $(ZOO_SCRIPT) --out $(ZOO_OUT) --verify-only $(ZOO_ERRLOG)

# The tiny Llama of test/fixtures/llm, exported with upstream's own LLM recipe (export_llama),
# with the greedy continuation upstream's runtime gives (test/zoo/export_llm.py).
zoo-llm: $(ZOO_STAMP)
	@echo "  GEN     test/fixtures/llm"
	$(ZOO_Q)mkdir -p $(ZOO_BUILD) && : > $(ZOO_LOG)
	$(ZOO_Q)PYTHONDONTWRITEBYTECODE=1 $(ZOO_VENV)/bin/python $(ZOO_ROOT)/test/zoo/export_llm.py \
	  --out $(ZOO_ROOT)/test/fixtures/llm $(ZOO_ERRLOG)

zoo-clean-venv:
	$(ZOO_Q)rm -rf $(ZOO_VENV)
