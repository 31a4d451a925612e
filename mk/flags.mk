# Project-owned flags (ET_*). User CPPFLAGS/CXXFLAGS/LDFLAGS come after these on every
# command line, so they win.

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
