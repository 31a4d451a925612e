# The dependency step: mk/deps.sh installs the Debian and Python packages the build and the
# tests need, once per machine, under a machine-wide lock.
#
# - The stamp lives outside every build tree (one per machine and user, keyed by the script's
#   contents), so `O=` trees and the sub-makes of `make check` share it instead of each
#   running apt-get. The probes run each time make reads the makefiles (a few milliseconds);
#   when something is missing the stamp is remade even if it exists, so removing a package
#   later is noticed.
# - Only the goals in DEPS_INSTALL_GOALS install (`make deps`, `check`, `run`, ...). Every
#   other goal, plain `make` included, only verifies: a missing package stops the build before
#   it starts, naming `make deps`, instead of apt-get or pip running in the middle of it.
# - Everything that compiles, links or runs a check waits for the stamp (order-only: rules.mk),
#   so under -j the installation finishes before anything else starts.

# - A cross build (ARCH=aarch64, mk/config.mk) probes and installs the cross packages as well
#   (ET_DEPS_CROSS), under the same lock, with its own stamp: a native build never installs
#   them, and `make check` only runs the emulated tests where they are present (mk/check-cross.mk).

DEPS_SCRIPT := mk/deps.sh
DEPS_CROSS := $(if $(filter 1,$(CROSS)),$(ARCH))
DEPS_STAMP_DIR ?= /var/tmp/executorch-runtime-deps-$(shell id -u)
# The target packages mk/deps.sh unpacks rather than installs (the target's Python and numpy).
DEPS_XROOT ?= $(DEPS_STAMP_DIR)-target/$(ARCH)
DEPS_ENV = PYTHON='$(PYTHON)' ET_DEPS_CROSS='$(DEPS_CROSS)' ET_DEPS_XROOT='$(DEPS_XROOT)'
DEPS_STAMP := $(DEPS_STAMP_DIR)/$(firstword $(shell cksum <$(DEPS_SCRIPT)))$(DEPS_CROSS:%=-%).ok
DEPS_MISSING := $(strip $(shell $(DEPS_ENV) sh $(DEPS_SCRIPT) missing))
DEPS_INSTALL_GOALS := deps check check-% run bench bench-% wheel zoo zoo-% fuzz fuzz-%
DEPS_MODE := $(if $(filter $(DEPS_INSTALL_GOALS),$(MAKECMDGOALS)),install,verify)

ifneq ($(DEPS_MISSING),)
$(DEPS_STAMP): FORCE
endif
$(DEPS_STAMP): $(DEPS_SCRIPT)
	$(Q)$(DEPS_ENV) sh $(DEPS_SCRIPT) $(DEPS_MODE) $@

.PHONY: deps FORCE
deps: $(DEPS_STAMP)
FORCE:
