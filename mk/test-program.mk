# Extra pieces of the program tests (test/unit/program/), included by mk/check.mk.
#
# 1. The private validation pass is hidden inside libexecutorch, so the tests link their own
#    copy of its object to call it directly (byte sweep, Minimal-level malformed cases).
# 2. unit-program-san: the same suite built with -fsanitize=address,undefined. The loading
#    code under test (Program, MethodMeta, validation, the data loaders, FlatTensorDataMap)
#    is compiled instrumented into the test binary itself, where its definitions take
#    precedence over the library's; the rest comes from the normal libexecutorch.so.1.
#    Skipped when the whole tree is already a SAN= build.
UNIT_program_EXTRA_LIBS := $(O)/runtime/executor/detail/program_validation.o

ifeq ($(strip $(SAN)),)
PSAN_DIR := $(O)/san-program
PSAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
PSAN_SRCS := runtime/executor/program.cpp runtime/executor/method_meta.cpp \
  runtime/executor/pte_data_map.cpp $(wildcard runtime/executor/detail/*.cpp) \
  $(wildcard runtime/extension/data_loader/*.cpp runtime/extension/data_loader/detail/*.cpp) \
  $(wildcard runtime/extension/flat_tensor/*.cpp runtime/extension/flat_tensor/serialize/*.cpp) \
  $(wildcard test/unit/program/*.cpp)
PSAN_OBJS := $(PSAN_SRCS:%.cpp=$(PSAN_DIR)/%.o)
PSAN_BIN := $(PSAN_DIR)/test_program_san

$(PSAN_OBJS): $(FLAGS_STAMP) | $(INCLUDE_STAMP) $(DEPS_STAMP) $(GENERATED_HEADERS)
-include $(PSAN_OBJS:.o=.d)

$(PSAN_DIR)/%.o: %.cpp
	$(quiet) CXX $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_CPPFLAGS) $(CPPFLAGS) $(ET_CXXFLAGS) $(PSAN_FLAGS) $(CXXFLAGS) $(ET_DEPFLAGS) -c $< -o $@

$(PSAN_BIN): $(PSAN_OBJS) $(RT_LIBS)
	$(quiet) LD $@
	@mkdir -p $(@D)
	$(Q)$(CXX) $(ET_LDFLAGS) $(PSAN_FLAGS) $(LDFLAGS) -o $@ $(PSAN_OBJS) \
	  $(RT_LINK) -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../lib' -lgtest -lgtest_main -pthread $(LDLIBS)

CHECKS += unit-program-san
.PHONY: check-unit-program-san
check-unit-program-san: $(PSAN_BIN)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(RUN_CHECK) unit-program-san $(PSAN_BIN)
endif
