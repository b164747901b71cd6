# Finds jemalloc (Debian: libjemalloc-dev) through pkg-config. Defines Jemalloc::Jemalloc.
# Only executables link it: libshale itself never does (see third_party/README.md).
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_JEMALLOC QUIET jemalloc)
endif()
find_path(Jemalloc_INCLUDE_DIR jemalloc/jemalloc.h HINTS ${PC_JEMALLOC_INCLUDE_DIRS})
find_library(Jemalloc_LIBRARY NAMES jemalloc HINTS ${PC_JEMALLOC_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Jemalloc REQUIRED_VARS Jemalloc_LIBRARY Jemalloc_INCLUDE_DIR
  VERSION_VAR PC_JEMALLOC_VERSION)
if(Jemalloc_FOUND AND NOT TARGET Jemalloc::Jemalloc)
  add_library(Jemalloc::Jemalloc UNKNOWN IMPORTED)
  set_target_properties(Jemalloc::Jemalloc PROPERTIES
    IMPORTED_LOCATION "${Jemalloc_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Jemalloc_INCLUDE_DIR}")
endif()
mark_as_advanced(Jemalloc_INCLUDE_DIR Jemalloc_LIBRARY)
