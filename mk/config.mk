# User knobs (?= so the command line and environment win) and the one version number.

# Toolchain: an origin check, because `CXX ?= g++` is a no-op against make's built-in CXX.
ifneq ($(filter default undefined,$(origin CXX)),)
  CXX := g++
endif
ifneq ($(filter default undefined,$(origin AR)),)
  AR := ar
endif
$(if $(strip $(CXX)),,$(error CXX is empty))

O ?= build
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
