# Project-owned flags (ET_*), and the names of the stamps every fragment may depend on (their
# rules are in mk/rules.mk). User CPPFLAGS/CXXFLAGS/LDFLAGS come after the project's flags on
# every command line, so they win.

ET_CPPFLAGS := -I$(O)/include -I$(O)/gen
ET_CXXFLAGS := -std=c++17 -O2 -g -fPIC -fvisibility=hidden -fvisibility-inlines-hidden \
               -Wall -Wextra -Werror -pthread
ET_DEPFLAGS = -MMD -MP -MF $(@:.o=.d) -MT $@
ET_LDFLAGS := -pthread

# SAN=address,undefined builds an instrumented tree (use a separate O=).
ifneq ($(strip $(SAN)),)
  ET_CXXFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
  ET_LDFLAGS += -fsanitize=$(SAN)
endif

# How a shared object is linked: every symbol resolved at link time. Empty in the clang
# ASan+UBSan tree (mk/fuzz.mk): clang links its sanitizer runtime into executables only, so its
# instrumented shared objects find __asan_* and __ubsan_* in the program when it loads them.
SHLIB_DEFS ?= -Wl,-z,defs

# A tree's own optimization and debug level, after the project's per-object flags (which add
# -O3 to the kernels) and before the user's CXXFLAGS. Empty for the main tree; `make check`'s
# TSan and cross trees set it (mk/test-tsan.mk, mk/check-cross.mk):
# most of a fresh `make check` is compiling, and those trees need neither full debug info nor
# -O3 code generation to find what they look for.
ET_TREE_CXXFLAGS ?=

# Changed compile flags rebuild every object; changed link flags relink every linked output.
FLAGS_STAMP := $(O)/.flags
LINK_STAMP := $(O)/.ldflags
# The public include root: the project's sources are included exactly as users include the
# installed headers (<executorch/runtime/...>, <executorch/extension/...>).
INCLUDE_ROOT := $(O)/include/executorch
INCLUDE_STAMP := $(O)/include/.stamp

ifeq ($(V),1)
  Q :=
  quiet = @:
else
  Q := @
  quiet = @printf '  %-7s %s\n'
endif
