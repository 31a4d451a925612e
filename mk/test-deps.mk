# check-deps: the dependency step (mk/deps.sh, mk/deps.mk) installs once for any number of
# concurrent make processes and trees, and plain `make` never installs
# (test/tools-tests/deps_once.sh, against a stand-in apt-get).

CHECKS += deps
.PHONY: check-deps
check-deps:
	@$(RUN_CHECK) deps sh test/tools-tests/deps_once.sh $(O)/test/deps
