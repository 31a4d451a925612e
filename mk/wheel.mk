# make wheel: dist/executorch_runtime-$(VERSION)-<python tag>-<python tag>-<platform>.whl, the
# Python package and C++ SDK in one zip, assembled by pkg/build_wheel.py (our own zip step with
# Python's zipfile; no setuptools). What goes where, and why nothing in it is a symlink, is in
# pkg/build_wheel.py's header. The platform tag is the one `auditwheel show` reports (auditwheel
# is pip-installed once into $(WHL_TOOLS_VENV); without it, linux_<arch>).
#
#   make wheel                      shared build: lib/libexecutorch.so.1 + libexecutorch_kernels.so.1
#   make SHARED=0 wheel             static build: _C self-contained, lib/*.a, no .so shipped
#   make check-wheel                the wheel checks (test/wheel/, each with its fault injection)
#
# The wheel is written to $(WHL_DIR)/dist (the checks use that copy) and copied to $(WHL_DIST).
# $(WHL_PATH_FILE) holds its path: the file name depends on the platform tag, known only after
# auditwheel has looked at it.

WHL_DIR ?= $(O)/wheel
WHL_DIST ?= dist
# The wheel's license: an SPDX expression and the files it ships (core metadata 2.4).
WHL_LICENSE_EXPRESSION := BSD-3-Clause
WHL_LICENSE_FILES := LICENSE
WHL_PY_TAG := $(shell $(PYTHON) -c 'import sys; print("cp%d%d" % sys.version_info[:2])' 2>/dev/null)
WHL_PATH_FILE := $(WHL_DIR)/wheel-path
WHL_HEADERS := $(WHL_DIR)/headers.txt
WHL_PKG_FILES := pkg/build_wheel.py pkg/et_run_console.py pkg/README.md $(INST_PC_IN) \
                 $(INST_CMAKE_CONFIG) $(INST_CMAKE_VERSION) $(WHL_LICENSE_FILES)

# auditwheel, once per build directory (pinned; a failed install only costs the manylinux tag).
WHL_TOOLS_VENV := $(O)/venv-tools
WHL_AUDITWHEEL := $(WHL_TOOLS_VENV)/bin/auditwheel
WHL_TOOLS_STAMP := $(WHL_TOOLS_VENV)/.ok
$(WHL_TOOLS_STAMP): | $(DEPS_STAMP)
	$(quiet) PIP '$(WHL_TOOLS_VENV): auditwheel'
	$(Q)rm -rf '$(WHL_TOOLS_VENV)' && $(PYTHON) -m venv '$(WHL_TOOLS_VENV)' && \
	  '$(WHL_TOOLS_VENV)/bin/pip' install --disable-pip-version-check -q auditwheel==6.8.2 \
	  >'$(O)/venv-tools.log' 2>&1 || \
	  { echo "auditwheel unavailable (see $(O)/venv-tools.log): the wheel gets the linux tag" >&2; }
	@touch $@

ifeq ($(SHARED),1)
WHL_LIB_INPUTS := $(RT_REAL) $(KERNELS_REAL)
WHL_LIB_ARGS = --shared-lib $(RT_REAL):$(RT_SONAME) --shared-lib $(KERNELS_REAL):$(KERNELS_SONAME)
else
WHL_LIB_INPUTS := $(RT_STATIC) $(KERNELS_STATIC)
WHL_LIB_ARGS = --static-lib $(RT_STATIC) --static-lib $(KERNELS_STATIC)
endif

$(WHL_PATH_FILE): $(PY_EXT) $(PY_FILES) $(WHL_LIB_INPUTS) $(INST_HDRS) $(WHL_PKG_FILES) \
                  mk/wheel.mk mk/config.mk | $(WHL_TOOLS_STAMP)
	$(quiet) GEN '$(WHL_HEADERS) ($(words $(INST_HDRS)) headers)'
	$(shell mkdir -p $(WHL_DIR))$(file >$(WHL_HEADERS).tmp,$(foreach h,$(INST_HDRS),$(h) $(patsubst runtime/devtools/%,devtools/%,$(patsubst runtime/extension/%,extension/%,$(h)))$(newline)))
	$(Q)mv -f $(WHL_HEADERS).tmp $(WHL_HEADERS)
	$(Q)ptr=$$(printf '__SIZEOF_POINTER__\n' | $(CXX) $(CPPFLAGS) $(CXXFLAGS) -E -P -x c++ - | tr -d ' \n'); \
	$(PYTHON) pkg/build_wheel.py --version $(VERSION) --python-tag $(WHL_PY_TAG) \
	  --stage $(WHL_DIR)/stage --out-dir $(WHL_DIR)/dist --path-file $@ \
	  --ext $(PY_EXT) $(addprefix --py-file ,$(PY_FILES)) --console pkg/et_run_console.py \
	  $(WHL_LIB_ARGS) --headers $(WHL_HEADERS) \
	  --cmake-config $(INST_CMAKE_CONFIG) --cmake-version $(INST_CMAKE_VERSION) \
	  --pc-in $(INST_PC_IN) --readme pkg/README.md \
	  --license-expression '$(WHL_LICENSE_EXPRESSION)' $(addprefix --license-file ,$(WHL_LICENSE_FILES)) \
	  --sizeof-void-p "$$ptr" --auditwheel $(WHL_AUDITWHEEL)

define newline


endef

.PHONY: wheel
wheel: $(WHL_PATH_FILE)
	$(Q)w=$$(cat $(WHL_PATH_FILE)); mkdir -p '$(WHL_DIST)' && \
	  rm -f '$(WHL_DIST)'/executorch_runtime-$(VERSION)-$(WHL_PY_TAG)-*.whl && \
	  cp -f "$$w" '$(WHL_DIST)/' && echo "  DIST    $(WHL_DIST)/$$(basename $$w)"

# ---- make check-wheel -------------------------------------------------------------------------------
# One CHECKS entry per check of test/wheel/wheelcheck.py (each runs its fault injection too; the
# checks' work directories are under $(WHL_CHECK_DIR), the cached CMake venvs of the matrix under
# $(WHL_CACHE_DIR), which survives between runs). The checks that need the wheel installed share
# one fresh venv, set up once per wheel; a failed setup does not stop `make check`: those checks
# then fail, naming the setup log.
WHL_CHECK_DIR := $(O)/wheel-check
WHL_CACHE_DIR := $(O)/wheel-cache
WHL_VENV := $(WHL_CHECK_DIR)/venv
WHL_VENV_STAMP := $(WHL_VENV)/.installed
WHL_CHECK_NAMES := layout install one-registry cmake-consumer components readelf relocate embed \
                   plugins pkgconfig headers cmake-matrix version static record
# Checks that read only the wheel file; the rest use the installed package.
WHL_FILE_CHECKS := layout one-registry record static
WHL_ENV = env ET_WHEEL_PATH_FILE='$(abspath $(WHL_PATH_FILE))' ET_WHL_WORK='$(abspath $(WHL_CHECK_DIR))' \
  ET_WHL_VENV='$(abspath $(WHL_VENV))' ET_WHL_CACHE='$(abspath $(WHL_CACHE_DIR))' ET_SRC='$(CURDIR)' \
  ET_CXX='$(CXX)' ET_PYTHON='$(PYTHON)' ET_VERSION='$(VERSION)' ET_O='$(O)' \
  ET_O_ABS='$(abspath $(O))' PYTHONDONTWRITEBYTECODE=1

ifeq ($(SHARED),1)
$(WHL_VENV_STAMP): $(WHL_PATH_FILE)
	$(quiet) VENV '$(WHL_VENV) (pip install the wheel)'
	$(Q)mkdir -p $(WHL_CHECK_DIR) && rm -f $@ && \
	  $(WHL_ENV) $(PYTHON) test/wheel/wheelcheck.py setup-venv >'$(WHL_VENV).log' 2>&1 || \
	  { echo "  (venv setup failed: $(WHL_VENV).log)"; }

# mk/check.mk is read before this file, so `check` gets these prerequisites here; its summary reads
# $(CHECKS) when it runs, and so counts them.
CHECKS += $(addprefix wheel-,$(WHL_CHECK_NAMES))
check: $(addprefix check-wheel-,$(WHL_CHECK_NAMES))
.PHONY: check-wheel $(addprefix check-wheel-,$(WHL_CHECK_NAMES))
check-wheel: $(addprefix check-wheel-,$(WHL_CHECK_NAMES))
	@sh test/tools/summarize.sh $(CHECK_DIR) $(addprefix wheel-,$(WHL_CHECK_NAMES))

$(addprefix check-wheel-,$(WHL_FILE_CHECKS)): $(WHL_PATH_FILE)
$(addprefix check-wheel-,$(filter-out $(WHL_FILE_CHECKS),$(WHL_CHECK_NAMES))): $(WHL_VENV_STAMP)
# The static check runs `make SHARED=0 wheel` in its own tree $(O)/static/build (kept between
# runs); $(MAKE) here passes the jobserver.
# The embed check's fault injection uses the static wheel's _C (a second, private registry).
check-wheel-embed: check-wheel-static
$(addprefix check-wheel-,$(WHL_CHECK_NAMES)): check-wheel-%:
	@$(RUN_CHECK) wheel-$* $(WHL_ENV) ET_MAKE='$(MAKE)' $(PYTHON) test/wheel/wheelcheck.py $*
endif
