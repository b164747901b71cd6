# Finds LZ4 (Debian: liblz4-dev), which ships no CMake config. Defines Lz4::Lz4.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_LZ4 QUIET liblz4)
endif()
find_path(Lz4_INCLUDE_DIR lz4hc.h HINTS ${PC_LZ4_INCLUDE_DIRS})
find_library(Lz4_LIBRARY NAMES lz4 HINTS ${PC_LZ4_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Lz4 REQUIRED_VARS Lz4_LIBRARY Lz4_INCLUDE_DIR
  VERSION_VAR PC_LZ4_VERSION)
if(Lz4_FOUND AND NOT TARGET Lz4::Lz4)
  add_library(Lz4::Lz4 UNKNOWN IMPORTED)
  set_target_properties(Lz4::Lz4 PROPERTIES
    IMPORTED_LOCATION "${Lz4_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Lz4_INCLUDE_DIR}")
endif()
mark_as_advanced(Lz4_INCLUDE_DIR Lz4_LIBRARY)
