# The one recipe for the project's libraries (the runtime, the kernels, the backends):
#
#   $(eval $(call shared_lib,PREFIX,NAME,VERSION_SCRIPT))
#
# reading the variables PREFIX_OBJS (the objects), PREFIX_LINK_ARGS (what follows the objects
# on the shared link line: libraries it needs, its RUNPATH) and PREFIX_LINK_DEPS (extra
# prerequisites of the shared link: the libraries named there).
#
# SHARED=1 links $(O)/lib/libNAME.so.$(VERSION) with SONAME libNAME.so.$(VERSION_MAJOR), the
# SONAME link and the dev link libNAME.so (-Wl,-z,defs: every symbol resolves at link time;
# VERSION_SCRIPT fixes the exports). SHARED=0 archives the same objects into libNAME.a. It
# defines PREFIX_SONAME, PREFIX_REAL, PREFIX_SONAME_LINK, PREFIX_DEV_LINK, PREFIX_STATIC,
# PREFIX_LIBS (what this SHARED= builds) and PREFIX_LINK, how a consumer links it:
#   shared  scoped --no-as-needed, since a consumer that only relies on registration from
#           static initializers references no symbol and --as-needed would drop the library;
#   static  the whole archive, since a linker drops archive members nothing refers to by
#           name, and registration objects are referred to by nothing.

define shared_lib
$(1)_SONAME := lib$(2).so.$(VERSION_MAJOR)
$(1)_REAL := $(O)/lib/lib$(2).so.$(VERSION)
$(1)_SONAME_LINK := $(O)/lib/lib$(2).so.$(VERSION_MAJOR)
$(1)_DEV_LINK := $(O)/lib/lib$(2).so
$(1)_STATIC := $(O)/lib/lib$(2).a
ifeq ($(SHARED),1)
$(1)_LIBS := $$($(1)_REAL) $$($(1)_SONAME_LINK) $$($(1)_DEV_LINK)
$(1)_LINK := -L$(O)/lib -Wl,--push-state,--no-as-needed -l$(2) -Wl,--pop-state
else
$(1)_LIBS := $$($(1)_STATIC)
$(1)_LINK := -Wl,--whole-archive $$($(1)_STATIC) -Wl,--no-whole-archive
endif
ALL_OBJS += $$($(1)_OBJS)
ALL_TARGETS += $$($(1)_LIBS)
ALL_LINKED += $$($(1)_REAL)

$$($(1)_REAL): $$($(1)_OBJS) $(3) $$($(1)_LINK_DEPS) $$(LINK_STAMP)
	$$(quiet) LD $$@
	@mkdir -p $$(@D)
	$$(Q)$$(CXX) -shared -Wl,-soname,$$($(1)_SONAME) -Wl,--version-script=$(3) \
	  $(SHLIB_DEFS) -Wl,--no-undefined-version -Wl,--enable-new-dtags \
	  $$(ET_LDFLAGS) $$(LDFLAGS) -o $$@ $$($(1)_OBJS) $$($(1)_LINK_ARGS) $$(LDLIBS)

$$($(1)_SONAME_LINK): $$($(1)_REAL)
	$$(Q)ln -sfn $$(notdir $$<) $$@

$$($(1)_DEV_LINK): $$($(1)_SONAME_LINK)
	$$(Q)ln -sfn $$(notdir $$<) $$@

$$($(1)_STATIC): $$($(1)_OBJS)
	$$(quiet) AR $$@
	@mkdir -p $$(@D)
	$$(Q)rm -f $$@ && $$(AR) rcs $$@ $$($(1)_OBJS)
endef
