# executorch-config.cmake: the CMake package of the ExecuTorch runtime (libexecutorch.so.1).
#
#   find_package(executorch 1.0 REQUIRED [COMPONENTS <c>...] [OPTIONAL_COMPONENTS <c>...])
#   target_link_libraries(app PRIVATE executorch::runtime)
#
# Hand-written and static; `make install` and the wheel ship this same file. It locates
# everything relative to its own directory (nothing absolute is written into it), so an
# installed tree or an unpacked wheel can be moved. The three _executorch_*_rel/_soversion lines
# below are the only ones `make install` rewrites: the values here are for the default layout
# (<prefix>/lib/cmake/executorch/ -> <prefix>/lib and <prefix>/include); an install with another
# LIBDIR, INCLUDEDIR or CMAKEDIR (e.g. lib/x86_64-linux-gnu, one hop deeper) gets its own.
# Plain EXISTS checks, never find_library/find_path: those would re-root the paths into a
# cross-compiling consumer's sysroot.
#
# Provides
#   executorch::runtime             SHARED IMPORTED (libexecutorch.so.1); STATIC IMPORTED when
#                                   only libexecutorch.a is installed (make SHARED=0), linked
#                                   --whole-archive so static registrations are kept
#   executorch::<component>         one per found component (see the table below)
#   EXECUTORCH_FOUND / executorch_FOUND
#   EXECUTORCH_LIBRARIES            executorch::runtime plus every found component target
#   EXECUTORCH_INCLUDE_DIRS         <prefix>/include
#   EXECUTORCH_COMPILE_DEFINITIONS  definitions a consumer must compile with (none today)
#   EXECUTORCH_CXX_STANDARD         17
#   EXECUTORCH_RUNTIME_LIBRARY_DIR  <prefix>/lib; put it in INSTALL_RPATH for installed apps
#   EXECUTORCH_VERSION              the package version (from executorch-config-version.cmake)
#   executorch_<component>_FOUND
#
# Components (find_package(executorch REQUIRED COMPONENTS kernels)):
#   kernels   executorch::kernels, libexecutorch_kernels.so.1: the CPU kernels, registering from
#             static initializers; linked under a scoped --no-as-needed, since nothing names them
#   xnnpack   executorch::backend_xnnpack, libexecutorch_backend_xnnpack.so.1: XnnpackBackend
#             (runs XNNPACK-lowered delegates on the kernels' compute core), linked the same way;
#             it brings executorch::kernels along (it needs the kernel library)
# A requested component that is unknown or not installed fails the configure, naming it.
#
# Every program linking executorch::runtime (shared) gets DT_RUNPATH (never DT_RPATH, so
# LD_LIBRARY_PATH can still override) with $ORIGIN, $ORIGIN/../lib and this package's lib
# directory, in that order: it runs in place without LD_LIBRARY_PATH, and a copy deployed with the
# libraries beside it (or in ../lib) uses those. This works on CMake 3.24 to 4.x under Makefiles and
# Ninja (see the response file below).
#
# Calling find_package(executorch) again (another directory, other components) is safe: targets
# are created once, variables are refilled for every caller.

cmake_policy(PUSH)
cmake_policy(VERSION 3.10...3.31)

# ---- Install layout, relative to this file's directory (rewritten by `make install`) -------------
set(_executorch_libdir_rel "../..")
set(_executorch_includedir_rel "../../../include")
set(_executorch_soversion "1")

# ---- Components: name -> library base name ---------------------------------------------------------
# executorch::<target> is defined when lib<base>.so.<soversion> sits next to libexecutorch. To add
# a component, append its name to the list and set _executorch_component_<name>_library (and
# _target when the target is not named like the component, _needs for the components it links).
set(_executorch_known_components kernels xnnpack)
set(_executorch_component_kernels_library executorch_kernels)
set(_executorch_component_xnnpack_library executorch_backend_xnnpack)
set(_executorch_component_xnnpack_target backend_xnnpack)
set(_executorch_component_xnnpack_needs kernels)

# ---- Locate the package ------------------------------------------------------------------------------
get_filename_component(_executorch_libdir
  "${CMAKE_CURRENT_LIST_DIR}/${_executorch_libdir_rel}" ABSOLUTE)
get_filename_component(_executorch_includedir
  "${CMAKE_CURRENT_LIST_DIR}/${_executorch_includedir_rel}" ABSOLUTE)
set(_executorch_shared "${_executorch_libdir}/libexecutorch.so.${_executorch_soversion}")
set(_executorch_static "${_executorch_libdir}/libexecutorch.a")

set(EXECUTORCH_FOUND TRUE)
set(_executorch_reasons "")
if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" AND NOT "${CMAKE_SYSTEM_NAME}" STREQUAL "")
  set(EXECUTORCH_FOUND FALSE)
  list(APPEND _executorch_reasons "this package is built for Linux, not ${CMAKE_SYSTEM_NAME}.")
endif()
if(NOT EXISTS "${_executorch_includedir}/executorch/runtime")
  set(EXECUTORCH_FOUND FALSE)
  list(APPEND _executorch_reasons
    "the headers are missing: ${_executorch_includedir}/executorch/runtime does not exist.")
endif()
if(EXISTS "${_executorch_shared}")
  set(_executorch_runtime_kind SHARED)
  set(_executorch_runtime_location "${_executorch_shared}")
elseif(EXISTS "${_executorch_static}")
  set(_executorch_runtime_kind STATIC)
  set(_executorch_runtime_location "${_executorch_static}")
else()
  set(EXECUTORCH_FOUND FALSE)
  list(APPEND _executorch_reasons
    "the runtime library is missing: neither ${_executorch_shared} nor ${_executorch_static} exists.")
endif()

# ---- Targets -------------------------------------------------------------------------------------------
if(EXECUTORCH_FOUND AND NOT TARGET executorch::runtime)
  add_library(executorch::runtime ${_executorch_runtime_kind} IMPORTED)
  set_target_properties(executorch::runtime PROPERTIES
    IMPORTED_LOCATION "${_executorch_runtime_location}"
    INTERFACE_INCLUDE_DIRECTORIES "${_executorch_includedir}"
    INTERFACE_COMPILE_FEATURES "cxx_std_17")
  if(_executorch_runtime_kind STREQUAL "SHARED")
    # RUNPATH for every consumer: DT_RUNPATH (so LD_LIBRARY_PATH still wins), $ORIGIN and
    # $ORIGIN/../lib first (a deployed copy prefers the libraries beside it), then this package's
    # lib directory (runs in place, and after `cmake --install`, which drops CMake's own build
    # RPATH). $ORIGIN goes through a linker response file: written into a link option, CMake
    # < 3.28 mangles it per generator ($$ORIGIN under Makefiles, "$" under Ninja) and no escaping
    # is right for both, while no generator looks inside the file. It lives in the consumer's
    # build tree, so nothing is written into the package.
    set(_executorch_rsp "${CMAKE_BINARY_DIR}/CMakeFiles/executorch-origin-rpath.rsp")
    set(_executorch_rsp_text "--enable-new-dtags -rpath=$ORIGIN:$ORIGIN/../lib\n")
    if(EXISTS "${_executorch_rsp}")
      file(READ "${_executorch_rsp}" _executorch_rsp_old)
    else()
      set(_executorch_rsp_old "")
    endif()
    if(NOT _executorch_rsp_old STREQUAL _executorch_rsp_text)
      file(WRITE "${_executorch_rsp}" "${_executorch_rsp_text}")
    endif()
    set_target_properties(executorch::runtime PROPERTIES
      IMPORTED_SONAME "libexecutorch.so.${_executorch_soversion}"
      INTERFACE_LINK_OPTIONS
        "LINKER:--enable-new-dtags;LINKER:@${_executorch_rsp};LINKER:-rpath,${_executorch_libdir}")
  else()
    # Backends and kernels register from static initializers, which an ordinary archive link
    # drops: take every member. The archive's own needs follow it.
    set_target_properties(executorch::runtime PROPERTIES
      INTERFACE_LINK_OPTIONS
        "LINKER:--whole-archive,${_executorch_runtime_location},--no-whole-archive"
      INTERFACE_LINK_LIBRARIES "${CMAKE_DL_LIBS};-pthread")
  endif()
endif()

set(EXECUTORCH_LIBRARIES "")
if(EXECUTORCH_FOUND)
  set(EXECUTORCH_LIBRARIES executorch::runtime)
endif()

# Every known component whose library is installed gets its target, requested or not, so that
# `if(TARGET executorch::<c>)` lists what an install offers.
foreach(_executorch_c IN LISTS _executorch_known_components)
  if(NOT DEFINED _executorch_component_${_executorch_c}_target)
    set(_executorch_component_${_executorch_c}_target ${_executorch_c})
  endif()
  set(_executorch_t ${_executorch_component_${_executorch_c}_target})
  # What the component's target links besides the runtime (components it needs, when present).
  set(_executorch_c_links executorch::runtime)
  foreach(_executorch_n IN LISTS _executorch_component_${_executorch_c}_needs)
    if(TARGET executorch::${_executorch_component_${_executorch_n}_target})
      list(APPEND _executorch_c_links executorch::${_executorch_component_${_executorch_n}_target})
    endif()
  endforeach()
  set(_executorch_c_lib
    "${_executorch_libdir}/lib${_executorch_component_${_executorch_c}_library}.so.${_executorch_soversion}")
  set(_executorch_c_static
    "${_executorch_libdir}/lib${_executorch_component_${_executorch_c}_library}.a")
  if(EXECUTORCH_FOUND AND _executorch_runtime_kind STREQUAL "STATIC"
     AND EXISTS "${_executorch_c_static}")
    # Static install (make SHARED=0): the component's archive, whole (registration-only).
    if(NOT TARGET executorch::${_executorch_t})
      add_library(executorch::${_executorch_t} STATIC IMPORTED)
      set_target_properties(executorch::${_executorch_t} PROPERTIES
        IMPORTED_LOCATION "${_executorch_c_static}"
        INTERFACE_LINK_LIBRARIES "${_executorch_c_links}"
        INTERFACE_LINK_OPTIONS
          "LINKER:--whole-archive,${_executorch_c_static},--no-whole-archive")
    endif()
    list(APPEND EXECUTORCH_LIBRARIES executorch::${_executorch_t})
  elseif(EXECUTORCH_FOUND AND _executorch_runtime_kind STREQUAL "SHARED"
         AND EXISTS "${_executorch_c_lib}")
    if(NOT TARGET executorch::${_executorch_t})
      add_library(executorch::${_executorch_t} SHARED IMPORTED)
      get_filename_component(_executorch_c_soname "${_executorch_c_lib}" NAME)
      # A component is usually registration-only (nothing references it by name), so keep it in
      # DT_NEEDED even under --as-needed. The path inside the option stops CMake's option
      # de-duplication from merging two components' scoping.
      set_target_properties(executorch::${_executorch_t} PROPERTIES
        IMPORTED_LOCATION "${_executorch_c_lib}"
        IMPORTED_SONAME "${_executorch_c_soname}"
        INTERFACE_LINK_LIBRARIES "${_executorch_c_links}"
        INTERFACE_LINK_OPTIONS
          "LINKER:--push-state,--no-as-needed,${_executorch_c_lib},--pop-state")
    endif()
    list(APPEND EXECUTORCH_LIBRARIES executorch::${_executorch_t})
  endif()
endforeach()

# ---- Requested components ------------------------------------------------------------------------------
foreach(_executorch_c IN LISTS executorch_FIND_COMPONENTS)
  if(_executorch_c IN_LIST _executorch_known_components
     AND TARGET executorch::${_executorch_component_${_executorch_c}_target})
    set(executorch_${_executorch_c}_FOUND TRUE)
  else()
    set(executorch_${_executorch_c}_FOUND FALSE)
    if(NOT _executorch_c IN_LIST _executorch_known_components)
      string(REPLACE ";" ", " _executorch_known "${_executorch_known_components}")
      set(_executorch_why
        "unknown component '${_executorch_c}' (known components: ${_executorch_known}).")
    else()
      set(_executorch_why "component '${_executorch_c}' is not installed: lib${_executorch_component_${_executorch_c}_library}.so.${_executorch_soversion} (or .a) is not in ${_executorch_libdir}.")
    endif()
    if(executorch_FIND_REQUIRED_${_executorch_c})
      set(EXECUTORCH_FOUND FALSE)
      list(APPEND _executorch_reasons "${_executorch_why}")
    elseif(NOT executorch_FIND_QUIETLY)
      message(STATUS "executorch: optional ${_executorch_why}")
    endif()
  endif()
endforeach()

# ---- Result ----------------------------------------------------------------------------------------------
set(executorch_FOUND ${EXECUTORCH_FOUND})
if(EXECUTORCH_FOUND)
  set(EXECUTORCH_INCLUDE_DIRS "${_executorch_includedir}")
  set(EXECUTORCH_COMPILE_DEFINITIONS "")
  set(EXECUTORCH_CXX_STANDARD 17)
  set(EXECUTORCH_RUNTIME_LIBRARY_DIR "${_executorch_libdir}")
  set(EXECUTORCH_VERSION "${executorch_VERSION}")
  unset(executorch_NOT_FOUND_MESSAGE)
else()
  # find_package reports this message and, under REQUIRED, stops the configure with it.
  string(REPLACE ";" " " executorch_NOT_FOUND_MESSAGE "${_executorch_reasons}")
  set(EXECUTORCH_LIBRARIES "")
  set(EXECUTORCH_INCLUDE_DIRS "")
  set(EXECUTORCH_COMPILE_DEFINITIONS "")
  set(EXECUTORCH_CXX_STANDARD "")
  set(EXECUTORCH_RUNTIME_LIBRARY_DIR "")
  set(EXECUTORCH_VERSION "")
endif()

foreach(_executorch_c IN LISTS _executorch_known_components)
  unset(_executorch_component_${_executorch_c}_library)
  unset(_executorch_component_${_executorch_c}_target)
  unset(_executorch_component_${_executorch_c}_needs)
endforeach()
foreach(_executorch_v IN ITEMS libdir_rel includedir_rel soversion known_components libdir
        includedir shared static reasons runtime_kind runtime_location c c_lib c_static c_soname
        c_links t n why known rsp rsp_text rsp_old)
  unset(_executorch_${_executorch_v})
endforeach()
unset(_executorch_v)
cmake_policy(POP)
