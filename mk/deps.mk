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

DEPS_SCRIPT := mk/deps.sh
DEPS_STAMP_DIR ?= /var/tmp/executorch-runtime-deps-$(shell id -u)
DEPS_STAMP := $(DEPS_STAMP_DIR)/$(firstword $(shell cksum <$(DEPS_SCRIPT))).ok
DEPS_MISSING := $(strip $(shell PYTHON='$(PYTHON)' sh $(DEPS_SCRIPT) missing))
DEPS_INSTALL_GOALS := deps check check-% run bench bench-% wheel zoo zoo-% fuzz fuzz-%
DEPS_MODE := $(if $(filter $(DEPS_INSTALL_GOALS),$(MAKECMDGOALS)),install,verify)

ifneq ($(DEPS_MISSING),)
$(DEPS_STAMP): FORCE
endif
$(DEPS_STAMP): $(DEPS_SCRIPT)
	$(Q)PYTHON='$(PYTHON)' sh $(DEPS_SCRIPT) $(DEPS_MODE) $@

.PHONY: deps FORCE
deps: $(DEPS_STAMP)
FORCE:
