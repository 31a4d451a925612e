# executorch-config-version.cmake: version check for find_package(executorch <version>).
#
# Hand-written and static; the wheel ships this same file. `make install` rewrites only the
# PACKAGE_VERSION line from mk/config.mk's VERSION (the value below is the checked-in default).
#
# Rule (same-major semantics, like TorchConfigVersion.cmake / SameMajorVersion):
#   compatible  when the requested major equals ours and the requested version is not newer
#               than ours (1.0 against 1.0.0: yes; 0.9, 1.1 and 2.0: no);
#   exact       when the requested version equals ours;
#   ranges      (find_package(executorch 1.0...<2.0)): the lower end follows the rule above, an
#               INCLUDE upper end rejects ours > max, an EXCLUDE upper end rejects ours >= max;
#   unsuitable  for a consumer whose pointer size differs from ours (a 32-bit build cannot link
#               this 64-bit library); skipped when the consumer has no language enabled.

set(PACKAGE_VERSION "1.0.0")
set(_executorch_sizeof_void_p "8")

set(PACKAGE_VERSION_COMPATIBLE FALSE)
set(PACKAGE_VERSION_EXACT FALSE)

string(REGEX MATCH "^[0-9]+" _executorch_major "${PACKAGE_VERSION}")

if(NOT DEFINED PACKAGE_FIND_VERSION OR "${PACKAGE_FIND_VERSION}" STREQUAL "")
  # find_package(executorch) without a version: any version will do.
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
else()
  # For a range, PACKAGE_FIND_VERSION and _MAJOR describe its lower end.
  if(PACKAGE_FIND_VERSION_MAJOR STREQUAL _executorch_major
     AND NOT PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
  if(PACKAGE_VERSION_COMPATIBLE AND DEFINED PACKAGE_FIND_VERSION_RANGE
     AND NOT "${PACKAGE_FIND_VERSION_MAX}" STREQUAL "")
    if(PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE"
       AND PACKAGE_VERSION VERSION_GREATER PACKAGE_FIND_VERSION_MAX)
      set(PACKAGE_VERSION_COMPATIBLE FALSE)
    elseif(PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE"
           AND NOT PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MAX)
      set(PACKAGE_VERSION_COMPATIBLE FALSE)
    endif()
  endif()
  if(PACKAGE_VERSION_COMPATIBLE AND PACKAGE_VERSION VERSION_EQUAL PACKAGE_FIND_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()

# A consumer configured for another pointer size: not this package (find_package keeps looking
# and, if nothing else fits, reports this version as "(64bit)" unsuitable).
if(NOT "${CMAKE_SIZEOF_VOID_P}" STREQUAL ""
   AND NOT "${CMAKE_SIZEOF_VOID_P}" STREQUAL "${_executorch_sizeof_void_p}")
  math(EXPR _executorch_bits "${_executorch_sizeof_void_p} * 8")
  set(PACKAGE_VERSION "${PACKAGE_VERSION} (${_executorch_bits}bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  unset(_executorch_bits)
endif()

unset(_executorch_major)
unset(_executorch_sizeof_void_p)
