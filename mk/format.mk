# make format: clang-format (Debian clang-format-14) over every C++ source the repository
# tracks, in the styles of .clang-format (and the directories that override it).
# check-format (part of make check) fails naming each file that is not formatted.

FORMAT := clang-format-14
FORMAT_FILES = $(shell git ls-files '*.cpp' '*.h' 2>/dev/null | grep -v '^test/fixtures/')

.PHONY: format
format: | $(DEPS_STAMP)
	$(Q)$(FORMAT) -i $(FORMAT_FILES)

CHECKS += format
.PHONY: check-format
check-format:
	@$(RUN_CHECK) format sh -c 'bad=0; for f in $(FORMAT_FILES); do \
	  $(FORMAT) --dry-run -Werror "$$f" >/dev/null 2>&1 || { echo "not formatted: $$f"; bad=1; }; \
	  done; [ $$bad -eq 0 ] || echo "run: make format"; exit $$bad'
