# Fresh-machine bootstrap: the build installs the Debian packages it lacks (apt-get when
# root; otherwise it prints the exact command and stops). Stamped, so this runs once.

DEB_PACKAGES := g++ flatbuffers-compiler libflatbuffers-dev libgtest-dev patchelf pkg-config cmake \
                clang-14 libclang-rt-14-dev
DEPS_STAMP := $(O)/.deps-ok

# Probes: a command or a file that proves each package is present.
define deps_missing
$$(command -v g++ >/dev/null || echo g++) \
$$(command -v flatc >/dev/null || echo flatbuffers-compiler) \
$$(test -f /usr/include/flatbuffers/flatbuffers.h || echo libflatbuffers-dev) \
$$(test -f /usr/include/gtest/gtest.h || echo libgtest-dev) \
$$(command -v patchelf >/dev/null || echo patchelf) \
$$(command -v pkg-config >/dev/null || echo pkg-config) \
$$(command -v cmake >/dev/null || echo cmake) \
$$(command -v clang++-14 >/dev/null || echo clang-14) \
$$(ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || echo libclang-rt-14-dev)
endef

$(DEPS_STAMP):
	@mkdir -p $(@D)
	$(Q)missing="$(strip $(deps_missing))"; missing=$$(echo $$missing); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "  DEPS    apt-get install $$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "missing build dependencies; run: sudo apt-get install -y $$missing" >&2; exit 1; \
	  fi; \
	fi
	@touch $@

.PHONY: deps
deps: $(DEPS_STAMP)
