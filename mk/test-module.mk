# The module tests (test/unit/module/) read the runtime's log lines through the method
# tests' log capture (test/unit/method/test_support.cpp) and craft programs with its
# program builder. Included by mk/check.mk before the unit groups are defined.
UNIT_module_EXTRA_LIBS := $(O)/test/unit/method/test_support.o
$(O)/test/unit/module/test_module: $(O)/test/unit/method/test_support.o
