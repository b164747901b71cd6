# Finds zstd (Debian: libzstd-dev), which ships no CMake config. Defines Zstd::Zstd.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_ZSTD QUIET libzstd)
endif()
find_path(Zstd_INCLUDE_DIR zstd.h HINTS ${PC_ZSTD_INCLUDE_DIRS})
find_library(Zstd_LIBRARY NAMES zstd HINTS ${PC_ZSTD_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Zstd REQUIRED_VARS Zstd_LIBRARY Zstd_INCLUDE_DIR
  VERSION_VAR PC_ZSTD_VERSION)
if(Zstd_FOUND AND NOT TARGET Zstd::Zstd)
  add_library(Zstd::Zstd UNKNOWN IMPORTED)
  set_target_properties(Zstd::Zstd PROPERTIES
    IMPORTED_LOCATION "${Zstd_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Zstd_INCLUDE_DIR}")
endif()
mark_as_advanced(Zstd_INCLUDE_DIR Zstd_LIBRARY)
