# Finds Snappy (Debian: libsnappy-dev) by pkg-config and find_library, the way zstd and LZ4 are
# found (Debian's SnappyConfig.cmake is not relied on: other distributions lack it). Defines
# Snappy::Snappy.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_SNAPPY QUIET snappy)
endif()
find_path(Snappy_INCLUDE_DIR snappy.h HINTS ${PC_SNAPPY_INCLUDE_DIRS})
find_library(Snappy_LIBRARY NAMES snappy HINTS ${PC_SNAPPY_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Snappy REQUIRED_VARS Snappy_LIBRARY Snappy_INCLUDE_DIR
  VERSION_VAR PC_SNAPPY_VERSION)
if(Snappy_FOUND AND NOT TARGET Snappy::Snappy)
  add_library(Snappy::Snappy UNKNOWN IMPORTED)
  set_target_properties(Snappy::Snappy PROPERTIES
    IMPORTED_LOCATION "${Snappy_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Snappy_INCLUDE_DIR}")
endif()
mark_as_advanced(Snappy_INCLUDE_DIR Snappy_LIBRARY)
