# make install / uninstall, and the install check (house-style §2.7).
#
# install writes, under $(DESTDIR):
#   $(LIBDIR)        libexecutorch.so.$(VERSION) + libexecutorch.so.$(VERSION_MAJOR) + libexecutorch.so
#                    (ln -sfn chain), or libexecutorch.a under SHARED=0; the same for the kernel
#                    library libexecutorch_kernels (the CMake component `kernels`)
#   $(INCLUDEDIR)    executorch/runtime/... and executorch/extension/...: every .h of the public
#                    source dirs except those in a detail/ directory, mode 0644
#   $(PKGCONFIGDIR)  executorch.pc, from pkg/executorch.pc.in
#   $(CMAKEDIR)      executorch-config.cmake, executorch-config-version.cmake, from cmake/
# Relocation: the .pc and the CMake files hold no absolute path. Here, at install time, the paths
# from their own directory to LIBDIR and INCLUDEDIR are computed (realpath --relative-to, on the
# final paths without DESTDIR) and written into them: ${pcfiledir}/..-style in the .pc, and the
# three marked set() lines of the CMake config (the checked-in values are the defaults for
# lib/cmake/executorch). So DESTDIR staging and moving the installed tree both keep working.
#
# uninstall removes what install wrote and the directories install created (if empty), using the
# record install leaves in $(O) (one per destination, like CMake's install_manifest.txt). Without
# a record it removes the files the same variables name and the empty directories under
# $(INCLUDEDIR)/executorch and $(CMAKEDIR): never a directory it cannot know it created.
#
# Other fragments may append: INST_SHARED_LIBS (real files lib<x>.so.$(VERSION); the links are
# made here), INST_STATIC_LIBS, INST_PROGRAMS (to $(BINDIR)).

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
                  runtime/extension
INST_HDRS = $(sort $(foreach r,$(wildcard $(INST_HDR_ROOTS)),\
              $(shell find $(r) -type f -name '*.h' -not -path '*/detail/*')))
# runtime/<x> installs as executorch/runtime/<x>, runtime/extension/<x> as executorch/extension/<x>.
INST_HDR_DESTS = $(patsubst runtime/extension/%,extension/%,$(INST_HDRS))

INST_LIB_NAMES = $(foreach l,$(INST_SHARED_LIBS),$(notdir $(l)) \
                   $(patsubst %.so.$(VERSION),%.so.$(VERSION_MAJOR),$(notdir $(l))) \
                   $(patsubst %.so.$(VERSION),%.so,$(notdir $(l)))) \
                 $(notdir $(INST_STATIC_LIBS))
INST_FILES = $(addprefix $(DESTDIR)$(LIBDIR)/,$(INST_LIB_NAMES)) \
             $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(INST_PROGRAMS))) \
             $(addprefix $(DESTDIR)$(INCLUDEDIR)/executorch/,$(INST_HDR_DESTS)) \
             $(DESTDIR)$(PKGCONFIGDIR)/executorch.pc \
             $(DESTDIR)$(CMAKEDIR)/executorch-config.cmake \
             $(DESTDIR)$(CMAKEDIR)/executorch-config-version.cmake
INST_DIRS = $(sort $(patsubst %/,%,$(dir $(INST_FILES))))

# One record per destination set, so installs to several prefixes from one build dir coexist.
INST_KEY = $(firstword $(shell printf '%s|' '$(DESTDIR)' '$(PREFIX)' '$(LIBDIR)' '$(INCLUDEDIR)' \
             '$(BINDIR)' '$(PKGCONFIGDIR)' '$(CMAKEDIR)' | cksum))
INST_RECORD = $(O)/install-record.$(INST_KEY)

# rel FROM TO: the path from directory FROM to TO, lexically (no symlink resolution).
INST_SH_REL = rel() { realpath -m -s --relative-to="$$1" "$$2"; }

.PHONY: install uninstall
# The record is written first (directories about to be created, files about to be written),
# merged with an earlier record for the same destination, so uninstall also undoes a partial
# install; then the new directories are made 0755 (parents first), whatever the umask.
install: $(INST_SHARED_LIBS) $(INST_STATIC_LIBS) $(INST_PROGRAMS)
	$(quiet) INSTALL '$(DESTDIR)$(PREFIX)'
	$(Q)set -e; rec='$(INST_RECORD)'; mkdir -p '$(O)'; \
	{ if [ -f "$$rec" ]; then cat "$$rec"; fi; \
	  for d in $(INST_DIRS); do \
	    while [ ! -d "$$d" ]; do echo "d $$d"; d=$$(dirname "$$d"); done; \
	  done; \
	  for f in $(INST_FILES); do echo "f $$f"; done; } | LC_ALL=C sort -u > "$$rec.tmp"; \
	mv -f "$$rec.tmp" "$$rec"; \
	sed -n 's/^d //p' "$$rec" | LC_ALL=C sort | while IFS= read -r d; do \
	  if [ ! -d "$$d" ]; then mkdir -m 0755 "$$d"; fi; done
	$(quiet) INSTALL '$(DESTDIR)$(LIBDIR)/$(notdir $(INST_SHARED_LIBS) $(INST_STATIC_LIBS))'
	$(Q)set -e; \
	for l in $(INST_SHARED_LIBS); do \
	  real=$${l##*/}; soname=$${real%.$(VERSION)}.$(VERSION_MAJOR); dev=$${real%.$(VERSION)}; \
	  install -m 0755 "$$l" '$(DESTDIR)$(LIBDIR)'/"$$real"; \
	  ln -sfn "$$real" '$(DESTDIR)$(LIBDIR)'/"$$soname"; \
	  ln -sfn "$$soname" '$(DESTDIR)$(LIBDIR)'/"$$dev"; \
	done; \
	for l in $(INST_STATIC_LIBS); do install -m 0644 "$$l" '$(DESTDIR)$(LIBDIR)/'; done; \
	for p in $(INST_PROGRAMS); do install -m 0755 "$$p" '$(DESTDIR)$(BINDIR)/'; done
	$(quiet) INSTALL '$(DESTDIR)$(INCLUDEDIR)/executorch ($(words $(INST_HDRS)) headers)'
	$(Q)set -e; for h in $(INST_HDRS); do \
	  case $$h in runtime/extension/*) d=extension/$${h#runtime/extension/};; *) d=$$h;; esac; \
	  install -m 0644 "$$h" '$(DESTDIR)$(INCLUDEDIR)/executorch'/"$$d"; \
	done
	$(quiet) GEN '$(DESTDIR)$(PKGCONFIGDIR)/executorch.pc'
	$(Q)set -e; $(INST_SH_REL); \
	P=$$(realpath -m -s '$(PREFIX)'); L=$$(realpath -m -s '$(LIBDIR)'); \
	I=$$(realpath -m -s '$(INCLUDEDIR)'); PC=$$(realpath -m -s '$(PKGCONFIGDIR)'); \
	under() { case "$$2" in "$$1"|"$$1"/*) return 0;; *) return 1;; esac; }; \
	pcpath() { if under "$$P" "$$1"; then echo '$${prefix}'/"$$(rel "$$P" "$$1")"; \
	           else echo '$${pcfiledir}'/"$$(rel "$$PC" "$$1")"; fi; }; \
	out='$(DESTDIR)$(PKGCONFIGDIR)/executorch.pc'; \
	sed -e "s|@PC_PREFIX@|\$${pcfiledir}/$$(rel "$$PC" "$$P")|" \
	    -e "s|@PC_LIBDIR@|$$(pcpath "$$L")|" -e "s|@PC_INCLUDEDIR@|$$(pcpath "$$I")|" \
	    -e 's|@PC_LIBS@|$(INST_PC_LIBS)|' -e 's|@PC_NOTE@|$(INST_PC_NOTE)|' \
	    -e 's|@VERSION@|$(VERSION)|' $(INST_PC_IN) > "$$out.tmp"; \
	chmod 0644 "$$out.tmp"; mv -f "$$out.tmp" "$$out"
	$(quiet) GEN '$(DESTDIR)$(CMAKEDIR)/executorch-config{,-version}.cmake'
	$(Q)set -e; $(INST_SH_REL); \
	CM=$$(realpath -m -s '$(CMAKEDIR)'); \
	lib=$$(rel "$$CM" "$$(realpath -m -s '$(LIBDIR)')"); \
	inc=$$(rel "$$CM" "$$(realpath -m -s '$(INCLUDEDIR)')"); \
	ptr=$$(printf '__SIZEOF_POINTER__\n' | $(CXX) $(CPPFLAGS) $(CXXFLAGS) -E -P -x c++ - | tr -d ' \n'); \
	out='$(DESTDIR)$(CMAKEDIR)/executorch-config.cmake'; \
	sed -e "s|^set(_executorch_libdir_rel \".*\")$$|set(_executorch_libdir_rel \"$$lib\")|" \
	    -e "s|^set(_executorch_includedir_rel \".*\")$$|set(_executorch_includedir_rel \"$$inc\")|" \
	    -e 's|^set(_executorch_soversion ".*")$$|set(_executorch_soversion "$(VERSION_MAJOR)")|' \
	    $(INST_CMAKE_CONFIG) > "$$out.tmp"; \
	for want in "_executorch_libdir_rel \"$$lib\"" "_executorch_includedir_rel \"$$inc\"" \
	            '_executorch_soversion "$(VERSION_MAJOR)"'; do \
	  grep -qxF "set($$want)" "$$out.tmp" || \
	    { echo "$(INST_CMAKE_CONFIG): no line to rewrite into set($$want)" >&2; rm -f "$$out.tmp"; exit 1; }; \
	done; \
	chmod 0644 "$$out.tmp"; mv -f "$$out.tmp" "$$out"; \
	out='$(DESTDIR)$(CMAKEDIR)/executorch-config-version.cmake'; \
	sed -e 's|^set(PACKAGE_VERSION ".*")$$|set(PACKAGE_VERSION "$(VERSION)")|' \
	    -e "s|^set(_executorch_sizeof_void_p \".*\")$$|set(_executorch_sizeof_void_p \"$$ptr\")|" \
	    $(INST_CMAKE_VERSION) > "$$out.tmp"; \
	for want in 'PACKAGE_VERSION "$(VERSION)"' "_executorch_sizeof_void_p \"$$ptr\""; do \
	  grep -qxF "set($$want)" "$$out.tmp" || \
	    { echo "$(INST_CMAKE_VERSION): no line to rewrite into set($$want)" >&2; rm -f "$$out.tmp"; exit 1; }; \
	done; \
	chmod 0644 "$$out.tmp"; mv -f "$$out.tmp" "$$out"

uninstall:
	$(quiet) UNINST '$(DESTDIR)$(PREFIX)'
	$(Q)rec='$(INST_RECORD)'; \
	{ for f in $(INST_FILES); do echo "$$f"; done; \
	  if [ -f "$$rec" ]; then sed -n 's/^f //p' "$$rec"; fi; } | LC_ALL=C sort -u | \
	while IFS= read -r f; do rm -f "$$f"; done; \
	if [ -f "$$rec" ]; then \
	  sed -n 's/^d //p' "$$rec" | LC_ALL=C sort -r | \
	  while IFS= read -r d; do if [ -d "$$d" ]; then rmdir "$$d" 2>/dev/null || :; fi; done; \
	else \
	  d='$(DESTDIR)$(INCLUDEDIR)/executorch'; \
	  if [ -d "$$d" ]; then find "$$d" -depth -type d -empty -delete; fi; \
	  case '$(CMAKEDIR)' in */executorch) rmdir '$(DESTDIR)$(CMAKEDIR)' 2>/dev/null || :;; esac; \
	fi; \
	rm -f "$$rec"

# The install check: stage an install under $(O)/check-install, build and run consumers through
# pkg-config and find_package, check the CMake version rule and components, uninstall.
CHECKS += install
.PHONY: check-install
check-install: $(INST_SHARED_LIBS) $(INST_STATIC_LIBS)
	@$(RUN_CHECK) install env ET_MAKE='$(MAKE)' ET_SRC='$(CURDIR)' ET_O='$(O)' \
	  ET_SHARED='$(SHARED)' ET_VERSION='$(VERSION)' ET_VERSION_MAJOR='$(VERSION_MAJOR)' \
	  ET_CXX='$(CXX)' sh test/sdk/check-install.sh
