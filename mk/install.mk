# make install / uninstall (pkg/install.sh does the work: what goes where, relocation, the
# install record that uninstall reads), and the install check.
#
# Other fragments may append: INST_SHARED_LIBS (real files lib<x>.so.$(VERSION); the links are
# made at install), INST_STATIC_LIBS, INST_PROGRAMS (to $(BINDIR)).

INST_PC_IN := pkg/executorch.pc.in
INST_CMAKE_CONFIG := cmake/executorch-config.cmake
INST_CMAKE_VERSION := cmake/executorch-config-version.cmake

ifeq ($(SHARED),1)
INST_SHARED_LIBS += $(RT_REAL) $(KERNELS_REAL)
INST_PC_LIBS := -lexecutorch
INST_PC_NOTE := \# Shared library. Programs need -Wl,-rpath,<libdir> (or LD_LIBRARY_PATH) unless libdir is a default loader path.
else
INST_STATIC_LIBS += $(RT_STATIC) $(KERNELS_STATIC)
# Backends and kernels register from static initializers: a plain -lexecutorch drops them.
INST_PC_LIBS := -Wl,--whole-archive,-lexecutorch,--no-whole-archive -ldl -pthread
INST_PC_NOTE := \# Static library (make SHARED=0): Libs takes the whole archive (--whole-archive), since backends and kernels register from static initializers a plain -lexecutorch would drop.
endif

# Public headers, listed when a recipe needs them (the set grows as sources are written).
INST_HDR_ROOTS := runtime/core runtime/platform runtime/kernel runtime/backend runtime/executor \
                  runtime/extension runtime/devtools
INST_HDRS = $(sort $(foreach r,$(wildcard $(INST_HDR_ROOTS)),\
              $(shell find $(r) -type f -name '*.h' -not -path '*/detail/*')))

# One record per destination set, so installs to several prefixes from one build dir coexist.
INST_KEY = $(firstword $(shell printf '%s|' '$(DESTDIR)' '$(PREFIX)' '$(LIBDIR)' '$(INCLUDEDIR)' \
             '$(BINDIR)' '$(PKGCONFIGDIR)' '$(CMAKEDIR)' | cksum))
INST_ENV = env DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' LIBDIR='$(LIBDIR)' INCLUDEDIR='$(INCLUDEDIR)' \
  BINDIR='$(BINDIR)' PKGCONFIGDIR='$(PKGCONFIGDIR)' CMAKEDIR='$(CMAKEDIR)' VERSION='$(VERSION)' \
  VERSION_MAJOR='$(VERSION_MAJOR)' RECORD='$(O)/install-record.$(INST_KEY)' V='$(V)' \
  SHARED_LIBS='$(INST_SHARED_LIBS)' STATIC_LIBS='$(INST_STATIC_LIBS)' PROGRAMS='$(INST_PROGRAMS)' \
  HEADERS='$(INST_HDRS)' PC_IN='$(INST_PC_IN)' PC_LIBS='$(INST_PC_LIBS)' PC_NOTE='$(INST_PC_NOTE)' \
  CMAKE_CONFIG='$(INST_CMAKE_CONFIG)' CMAKE_VERSION='$(INST_CMAKE_VERSION)' \
  CXX='$(CXX)' CPPFLAGS='$(CPPFLAGS)' CXXFLAGS='$(CXXFLAGS)'

.PHONY: install uninstall
install: $(INST_SHARED_LIBS) $(INST_STATIC_LIBS) $(INST_PROGRAMS)
	$(Q)$(INST_ENV) sh pkg/install.sh install

uninstall:
	$(Q)$(INST_ENV) sh pkg/install.sh uninstall

# The install check: a sub-make installs this tree's libraries into a staging directory;
# consumers are built and run through pkg-config and find_package; the CMake version rule and
# components are checked; uninstall. The check waits for what `install` copies, so the sub-make
# (same tree, same flags) finds it built and only copies: no object is written while other
# checks run, and no tree of its own is compiled.
CHECKS += install
.PHONY: check-install
check-install: $(INST_SHARED_LIBS) $(INST_STATIC_LIBS) $(INST_PROGRAMS)
	@$(RUN_CHECK) install env ET_MAKE='$(MAKE)' ET_SRC='$(CURDIR)' ET_O='$(O)' \
	  ET_SHARED='$(SHARED)' ET_VERSION='$(VERSION)' ET_VERSION_MAJOR='$(VERSION_MAJOR)' \
	  ET_CXX='$(CXX)' sh test/sdk/check-install.sh
