# Extra pieces of the program tests (test/unit/program/), included by mk/check.mk.
#
# 1. The private validation pass is hidden inside libexecutorch, so the tests link their own
#    copy of its object to call it directly (byte sweep, Minimal-level malformed cases). With
#    SHARED=0 the whole static runtime is linked in already (hidden visibility does not hide
#    anything inside one static link), and a second copy would define every symbol twice.
# 2. The suite also runs under ASan+UBSan in a fully instrumented tree: see mk/test-sanitize.mk.
ifeq ($(SHARED),1)
UNIT_program_EXTRA_LIBS := $(O)/runtime/executor/detail/program_validation.o \
                           $(O)/runtime/executor/detail/value_validation.o \
                           $(O)/runtime/executor/detail/instruction_validation.o \
                           $(O)/runtime/executor/detail/storage_validation.o
endif
