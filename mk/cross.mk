# Cross builds (CROSS=1, set by ARCH= or CROSS_COMPILE= in mk/config.mk): what differs from a
# native build, in one place. Read right after mk/deps.mk, before anything defines a product.
#
# - The compiler must target $(ARCH): `make ARCH=aarch64 CXX=g++` would otherwise build x86
#   objects into the aarch64 tree. It is checked once, when the makefiles are read.
# - Header-only host packages (FlatBuffers, GoogleTest's headers) are reached through
#   $(O)/host-include, a directory of symlinks to exactly those header directories: putting
#   /usr/include itself on the cross compiler's path would mix the build machine's C library
#   headers into the target's.
# - flatc is a program run during the build: the build machine's one (mk/runtime.mk).
# - GoogleTest is compiled for the target from the sources Debian ships with libgtest-dev
#   (/usr/src/googletest): the same version as the headers by construction, and no second
#   architecture's packages needed just for the unit tests.
# - The Python extension is compiled against the target's Python headers: Debian's
#   libpython3.11-dev:arm64 (multiarch), whose pyconfig.h is the one configure wrote on
#   aarch64; the rest of /usr/include/python3.11 is shared by every architecture.

ifeq ($(CROSS),1)
CROSS_TRIPLET := $(ARCH)-linux-gnu
CROSS_CXX_TARGET := $(shell $(CXX) -dumpmachine 2>/dev/null)
ifeq ($(filter $(ARCH)-%,$(CROSS_CXX_TARGET)),)
  ifneq ($(DEPS_MISSING)$(filter deps,$(MAKECMDGOALS)),)
    # A fresh machine: the compiler comes with `make deps` (mk/deps.sh); the dependency step
    # names what is missing before anything is compiled.
  else
    $(error CXX='$(CXX)' targets '$(CROSS_CXX_TARGET)', not $(ARCH): use CXX='$(CROSS_COMPILE)g++' (or 'ccache $(CROSS_COMPILE)g++'))
  endif
endif

# The target's programs run under qemu-user: the checks put this in front of them.
TARGET_EXEC := $(CURDIR)/test/tools/qemu-run.sh --

CROSS_HOST_INCLUDE := $(O)/host-include
CROSS_HOST_INCLUDE_STAMP := $(CROSS_HOST_INCLUDE)/.stamp
CROSS_PY_VERSION := 3.11
GTEST_SRC ?= /usr/src/googletest/googletest
ET_CPPFLAGS += -isystem $(CROSS_HOST_INCLUDE)
# Every object waits for the symlinks, as for the generated schema headers.
GENERATED_HEADERS += $(CROSS_HOST_INCLUDE_STAMP)

$(CROSS_HOST_INCLUDE_STAMP): mk/cross.mk | $(DEPS_STAMP)
	$(quiet) GEN $(CROSS_HOST_INCLUDE)
	@mkdir -p $(CROSS_HOST_INCLUDE)/$(CROSS_TRIPLET)
	$(Q)ln -sfn /usr/include/flatbuffers $(CROSS_HOST_INCLUDE)/flatbuffers
	$(Q)ln -sfn $(GTEST_SRC)/include/gtest $(CROSS_HOST_INCLUDE)/gtest
	$(Q)ln -sfn /usr/include/$(CROSS_TRIPLET)/python$(CROSS_PY_VERSION) \
	  $(CROSS_HOST_INCLUDE)/$(CROSS_TRIPLET)/python$(CROSS_PY_VERSION)
	@touch $@

# The target's Python (mk/pybind.mk): headers, and the extension's file name suffix.
PY_INCLUDES := /usr/include/python$(CROSS_PY_VERSION)
PY_EXT_SUFFIX := .cpython-$(subst .,,$(CROSS_PY_VERSION))-$(CROSS_TRIPLET).so
WHL_PY_TAG := cp$(subst .,,$(CROSS_PY_VERSION))

# GoogleTest for the target: libgtest.a and libgtest_main.a, found by -lgtest -lgtest_main
# (mk/check.mk) through -L. Its own flags: it is not the project's code (-Werror stays off).
GTEST_DIR := $(O)/gtest
GTEST_LIBS := $(GTEST_DIR)/lib/libgtest.a $(GTEST_DIR)/lib/libgtest_main.a
ET_LDFLAGS += -L$(GTEST_DIR)/lib

$(GTEST_DIR)/%.o: $(GTEST_SRC)/src/%.cc mk/cross.mk | $(DEPS_STAMP)
	$(quiet) CXX $@
	@mkdir -p $(@D)
	$(Q)$(CXX) -std=c++17 -O2 -g -pthread -I$(GTEST_SRC) -I$(GTEST_SRC)/include -c $< -o $@

$(GTEST_DIR)/lib/libgtest.a: $(GTEST_DIR)/gtest-all.o
	$(quiet) AR $@
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $<

$(GTEST_DIR)/lib/libgtest_main.a: $(GTEST_DIR)/gtest_main.o
	$(quiet) AR $@
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $<
endif
