# User knobs (?= so the command line and environment win) and the one version number.

# Target architecture: ARCH=aarch64, or CROSS_COMPILE=aarch64-linux-gnu- (the Kbuild
# convention; either implies the other). A target other than the build machine's is a cross
# build (CROSS=1, mk/cross.mk): $(CROSS_COMPILE)g++ compiles, flatc and the other tools run on
# the build machine, and the tests run under qemu-user (`make check-aarch64`).
HOST_ARCH := $(shell uname -m)
ifeq ($(strip $(CROSS_COMPILE)),)
  ARCH ?= $(HOST_ARCH)
  CROSS_COMPILE := $(if $(filter $(HOST_ARCH),$(ARCH)),,$(ARCH)-linux-gnu-)
else
  ARCH ?= $(firstword $(subst -, ,$(CROSS_COMPILE)))
endif
CROSS := $(if $(filter $(HOST_ARCH),$(ARCH)),0,1)

# Toolchain: an origin check, because `CXX ?= g++` is a no-op against make's built-in CXX.
ifneq ($(filter default undefined,$(origin CXX)),)
  CXX := $(CROSS_COMPILE)g++
endif
ifneq ($(filter default undefined,$(origin AR)),)
  AR := $(CROSS_COMPILE)ar
endif
NM ?= $(CROSS_COMPILE)nm
STRIP ?= $(CROSS_COMPILE)strip
$(if $(strip $(CXX)),,$(error CXX is empty))

# A cross tree lives beside the native one, under it: `make clean` removes both.
ifeq ($(CROSS),1)
O ?= build/$(ARCH)
else
O ?= build
endif
V ?= 0
SHARED ?= 1

VERSION_MAJOR := 1
VERSION_MINOR := 0
VERSION_PATCH := 0
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)

PREFIX ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
LIBDIR ?= $(EXEC_PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(EXEC_PREFIX)/bin
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/executorch
DESTDIR ?=

PYTHON ?= python3
