# Extra artifacts of the registry tests (test/unit/registry/): a plugin shared library that
# registers a backend and a kernel from static initializers, and a program linked directly
# to that plugin. Included by mk/check.mk before the unit groups are defined.
#
# The plugin links only libexecutorch.so.1, so it only makes sense with SHARED=1 (a plugin
# linked to libexecutorch.a would carry its own registry); with SHARED=0 the plugin tests
# skip themselves.

REG_DIR := $(O)/test/unit/registry
REG_PLUGIN := $(REG_DIR)/libregistry_plugin.so
REG_PLUGIN_OBJS := $(O)/test/unit/registry/plugin/registry_plugin.o
REG_LINKED := $(REG_DIR)/registry_linked_plugin
REG_LINKED_OBJS := $(O)/test/unit/registry/plugin/linked_main.o

UNIT_registry_EXTRA_LIBS := -ldl

ifeq ($(SHARED),1)
REG_OBJS := $(REG_PLUGIN_OBJS) $(REG_LINKED_OBJS)
ALL_OBJS += $(REG_OBJS)
ALL_LINKED += $(REG_PLUGIN) $(REG_LINKED)
UNIT_registry_EXTRA_DEPS := $(REG_PLUGIN) $(REG_LINKED)

# -z defs: the plugin resolves everything against libexecutorch.so.1 (and libc/libstdc++).
$(REG_PLUGIN): $(REG_PLUGIN_OBJS) $(RT_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) -shared $(SHLIB_DEFS) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(REG_PLUGIN_OBJS) \
	  $(RT_LINK) -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../../../lib' $(LDLIBS)

# References no plugin symbol: only the scoped --no-as-needed keeps the plugin in DT_NEEDED.
$(REG_LINKED): $(REG_LINKED_OBJS) $(REG_PLUGIN) $(RT_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_LDFLAGS) $(LDFLAGS) -o $@ $(REG_LINKED_OBJS) \
	  -L$(REG_DIR) -Wl,--push-state,--no-as-needed -lregistry_plugin -Wl,--pop-state \
	  $(RT_LINK) -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../../../lib' $(LDLIBS)
endif
