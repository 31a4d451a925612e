# check-python: the pytest suite test/python/ against the staged package $(O)/python (see
# mk/pybind.mk), plus the plugin the suite loads with executorch_runtime.load_library(): a
# backend and a kernel registered from static initializers, linked only against
# libexecutorch.so.1, with C entry points through which C++ code reports what it sees.
# Included by mk/check.mk. SHARED=0 has no extension, so no check.

PYT_DIR := $(O)/test/python
PYT_PLUGIN := $(PYT_DIR)/libpytest_plugin.so
PYT_PLUGIN_OBJS := $(O)/test/python/plugin/pytest_plugin.o

ifeq ($(SHARED),1)
ALL_OBJS += $(PYT_PLUGIN_OBJS)
ALL_LINKED += $(PYT_PLUGIN)
$(PYT_PLUGIN_OBJS): mk/test-python.mk

$(PYT_PLUGIN): $(PYT_PLUGIN_OBJS) $(RT_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) -shared $(SHLIB_DEFS) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(PYT_PLUGIN_OBJS) \
	  $(RT_LINK) -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../../lib' $(LDLIBS)

CHECKS += python
.PHONY: check-python
check-python: python $(PYT_PLUGIN)
	@$(RUN_CHECK) python env PYTHONPATH='$(abspath $(PY_STAGE))' \
	  ET_PY_PLUGIN='$(abspath $(PYT_PLUGIN))' ET_PY_EXT='$(abspath $(PY_EXT))' \
	  ET_PY_ZOO='$(CURDIR)/test/fixtures/zoo' PYTHONDONTWRITEBYTECODE=1 \
	  $(PYTHON) -m pytest -q -p no:cacheprovider test/python
endif
