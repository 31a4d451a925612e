# The Python package executorch_runtime: the extension _C (pybind/*.cpp) and the pure-Python
# package (pybind/executorch_runtime/), staged under $(O)/python/ in the layout the wheel uses:
#
#   $(O)/python/executorch_runtime/__init__.py ...     copies of pybind/executorch_runtime/*
#   $(O)/python/executorch_runtime/_C<ext-suffix>      RUNPATH $ORIGIN/lib
#   $(O)/python/executorch_runtime/lib/libexecutorch.so.1          -> ../../../lib/... (symlinks:
#   $(O)/python/executorch_runtime/lib/libexecutorch_kernels.so.1  -> ../../../lib/...  one file)
#   $(O)/python/executorch_runtime/include             -> ../../include (the public headers)
#
# The extension never carries the runtime: it links libexecutorch.so.1,
# libexecutorch_kernels.so.1 and libexecutorch_backend_xnnpack.so.1 as shared libraries under a scoped --no-as-needed (it references
# nothing of the kernels library), exports only PyInit__C (pybind/pybind.map) and, unlike the
# runtime, is linked without -z defs (the Py* symbols come from the interpreter).
# SHARED=0 builds, on request (`make SHARED=0 python` or `wheel`, not `all`), a self-contained
# extension with the static runtime and kernels inside (see the else branch below).
#
# `make python` builds and stages; PYTHONPATH=$(O)/python makes the package importable.

PY_PKG_SRC := pybind/executorch_runtime
PY_STAGE := $(O)/python
PY_PKG := $(PY_STAGE)/executorch_runtime
# A cross build sets the target's PY_EXT_SUFFIX and PY_INCLUDES first (mk/cross.mk).
ifndef PY_EXT_SUFFIX
PY_EXT_SUFFIX := $(shell $(PYTHON)-config --extension-suffix 2>/dev/null || \
                   $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
endif
PY_EXT := $(PY_PKG)/_C$(PY_EXT_SUFFIX)

PY_SRCS := $(sort $(wildcard pybind/*.cpp))
PY_OBJS := $(PY_SRCS:%.cpp=$(O)/%.o)
PY_MAP := pybind/pybind.map
PY_FILES := $(sort $(wildcard $(PY_PKG_SRC)/*.py $(PY_PKG_SRC)/*.pyi $(PY_PKG_SRC)/py.typed))
PY_STAGED_FILES := $(PY_FILES:$(PY_PKG_SRC)/%=$(PY_PKG)/%)
PY_LIB_LINKS := $(PY_PKG)/lib/$(RT_SONAME) $(PY_PKG)/lib/$(KERNELS_SONAME) $(PY_PKG)/lib/$(XNNPACK_SONAME)
# Build tree only: linker names for `-L$(get_library_dir) -lexecutorch` (the wheel ships
# linker scripts there instead).
PY_LIB_DEVLINKS := $(PY_PKG)/lib/libexecutorch.so $(PY_PKG)/lib/libexecutorch_kernels.so \
                   $(PY_PKG)/lib/libexecutorch_backend_xnnpack.so
PY_INCLUDE_LINK := $(PY_PKG)/include

# Python and pybind11 headers as system headers (the project's -Werror does not apply to
# them). The pybind11 path falls back to where the dependency step (mk/deps.sh) installs it,
# so a fresh machine gets the right flags in the same make run that installs it.
ifndef PY_INCLUDES
PY_INCLUDES := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
endif
PY_PYBIND11_INCLUDE := $(shell $(PYTHON) -c 'import pybind11; print(pybind11.get_include())' 2>/dev/null || \
                         $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"] + "/pybind11/include")')

.PHONY: python
ifeq ($(SHARED),1)
ALL_OBJS += $(PY_OBJS)
PY_OUTPUTS := $(PY_EXT) $(PY_STAGED_FILES) $(PY_LIB_LINKS) $(PY_LIB_DEVLINKS) $(PY_INCLUDE_LINK)
ALL_TARGETS += $(PY_OUTPUTS)
python: $(PY_OUTPUTS)

$(PY_OBJS): ET_CPPFLAGS += -isystem $(PY_INCLUDES) -isystem $(PY_PYBIND11_INCLUDE) \
                           -DET_PY_VERSION='"$(VERSION)"'
$(PY_OBJS): mk/pybind.mk
ALL_LINKED += $(PY_EXT)

$(PY_EXT): $(PY_OBJS) $(PY_MAP) $(RT_LIBS) $(KERNELS_LIBS) $(XNNPACK_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) -shared -Wl,--version-script=$(PY_MAP) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(PY_OBJS) \
	  -L$(O)/lib -Wl,--push-state,--no-as-needed -lexecutorch_backend_xnnpack -lexecutorch_kernels \
	  -lexecutorch -Wl,--pop-state \
	  -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/lib' -ldl $(LDLIBS)

# Relative symlinks into $(O)/lib: the one file each, whichever name it is reached by.
$(PY_PKG)/lib/%.so.$(VERSION_MAJOR): $(O)/lib/%.so.$(VERSION_MAJOR)
	@mkdir -p $(@D)
	$(Q)ln -sfn ../../../lib/$(notdir $<) $@

$(PY_LIB_DEVLINKS): $(PY_PKG)/lib/%.so: $(PY_PKG)/lib/%.so.$(VERSION_MAJOR)
	$(Q)ln -sfn $(notdir $<) $@

$(PY_INCLUDE_LINK): | $(INCLUDE_STAMP)
	@mkdir -p $(@D)
	$(Q)ln -sfn ../../include $@
else
# SHARED=0 (the static wheel, `make SHARED=0 wheel`): _C takes the whole static archives
# (registration runs from static initializers), so it is self-contained, one registry inside the
# extension, and pybind/pybind.map keeps everything but PyInit__C local. No lib/ links are staged:
# there is no libexecutorch.so.1. Not part of `all` (a static build needs no Python); `python`
# and `wheel` build it.
ALL_OBJS += $(PY_OBJS)
PY_OUTPUTS := $(PY_EXT) $(PY_STAGED_FILES) $(PY_INCLUDE_LINK)
python: $(PY_OUTPUTS)

$(PY_OBJS): ET_CPPFLAGS += -isystem $(PY_INCLUDES) -isystem $(PY_PYBIND11_INCLUDE) \
                           -DET_PY_VERSION='"$(VERSION)"'
$(PY_OBJS): mk/pybind.mk
ALL_LINKED += $(PY_EXT)

$(PY_EXT): $(PY_OBJS) $(PY_MAP) $(RT_STATIC) $(KERNELS_STATIC) $(XNNPACK_STATIC)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) -shared -Wl,--version-script=$(PY_MAP) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(PY_OBJS) \
	  -Wl,--whole-archive $(XNNPACK_STATIC) $(KERNELS_STATIC) $(RT_STATIC) -Wl,--no-whole-archive \
	  -ldl $(LDLIBS)

$(PY_INCLUDE_LINK): | $(INCLUDE_STAMP)
	@mkdir -p $(@D)
	$(Q)ln -sfn ../../include $@
endif

$(PY_STAGED_FILES): $(PY_PKG)/%: $(PY_PKG_SRC)/%
	@mkdir -p $(@D)
	$(Q)cp -f $< $@
