# executorch-runtime: one make process, every output under $(O) (default build/).
# Entry points only; the work is in mk/*.mk (see `make help`).
.DEFAULT_GOAL := all
MAKEFLAGS += --no-builtin-rules
.DELETE_ON_ERROR:
.SUFFIXES:

include mk/config.mk
include mk/flags.mk
include mk/deps.mk
include mk/runtime.mk
include $(wildcard mk/kernels.mk)
include $(wildcard mk/tools.mk)
include $(wildcard mk/pybind.mk)
include $(wildcard mk/install.mk)
include mk/check.mk
include $(wildcard mk/zoo.mk)
include $(wildcard mk/wheel.mk)
include $(wildcard mk/bench.mk)
include $(wildcard mk/bench-*.mk)
include $(wildcard mk/fuzz.mk)
# Last: its object prerequisites and dependency includes need the complete ALL_OBJS.
include mk/rules.mk

.PHONY: all clean help
all: $(ALL_TARGETS)

clean:
	rm -rf $(O)

help:
	@echo 'Targets:'
	@echo '  all        build libexecutorch.so.1 and the tools (default)'
	@echo '  check      build and run every test; ends with "N passed, N failed"'
	@echo '  install    install into $$(DESTDIR)$$(PREFIX) (PREFIX=$(PREFIX))'
	@echo '  uninstall  remove exactly what install wrote'
	@echo '  zoo        regenerate test/fixtures/zoo with the upstream exporter (needs torch venv)'
	@echo '  clean      rm -rf $(O)'
	@echo 'Knobs: O=dir V=1 SHARED=0 CXX= CXXFLAGS= LDFLAGS= PREFIX= LIBDIR= INCLUDEDIR= DESTDIR='
