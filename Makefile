# executorch-runtime: one make process, every output under $(O) (default build/).
# Entry points only; the work is in mk/*.mk (see `make help`).
.DEFAULT_GOAL := all
MAKEFLAGS += --no-builtin-rules
.DELETE_ON_ERROR:
.SUFFIXES:

# Every fragment is named: a missing one stops make instead of silently dropping a product.
include mk/config.mk
include mk/flags.mk
include mk/deps.mk
include mk/cross.mk
include mk/shared-lib.mk
include mk/runtime.mk
include mk/kernels.mk
include mk/backend-xnnpack.mk
include mk/tools.mk
include mk/pybind.mk
include mk/install.mk
include mk/check.mk
include mk/zoo.mk
include mk/wheel.mk
include mk/check-cross.mk
include mk/bench.mk
include mk/bench-compute.mk
include mk/bench-harness.mk
include mk/bench-llm.mk
include mk/fuzz.mk
# Last: the object, link and check prerequisites need the complete ALL_OBJS, ALL_LINKED, CHECKS.
include mk/rules.mk

.PHONY: all clean help
all: $(ALL_TARGETS)

clean:
	rm -rf $(O)

help:
	@echo 'Targets:'
	@echo '  all        build libexecutorch.so.1 and the tools (default)'
	@echo '  deps       install the Debian and Python packages the build and tests need'
	@echo '  check      build and run every test; ends with "N passed, N failed"'
	@echo '  check-aarch64  build the aarch64 cross tree (build/aarch64), run its tests under qemu'
	@echo '  install    install into $$(DESTDIR)$$(PREFIX) (PREFIX=$(PREFIX))'
	@echo '  uninstall  remove exactly what install wrote'
	@echo '  zoo        regenerate test/fixtures/zoo with the upstream exporter (needs torch venv)'
	@echo '  clean      rm -rf $(O)'
	@echo 'Knobs: O=dir V=1 SHARED=0 CXX= CXXFLAGS= LDFLAGS= PREFIX= LIBDIR= INCLUDEDIR= DESTDIR='
	@echo '       ARCH=aarch64 or CROSS_COMPILE=aarch64-linux-gnu- (cross build, README)'
