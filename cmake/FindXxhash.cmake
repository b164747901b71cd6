# Finds xxHash (Debian: libxxhash-dev). ShaleDB uses it header-only (XXH_INLINE_ALL), so
# Xxhash::Xxhash carries only the include directory and nothing is linked.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_XXHASH QUIET libxxhash)
endif()
find_path(Xxhash_INCLUDE_DIR xxhash.h HINTS ${PC_XXHASH_INCLUDE_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Xxhash REQUIRED_VARS Xxhash_INCLUDE_DIR
  VERSION_VAR PC_XXHASH_VERSION)
if(Xxhash_FOUND AND NOT TARGET Xxhash::Xxhash)
  add_library(Xxhash::Xxhash INTERFACE IMPORTED)
  set_target_properties(Xxhash::Xxhash PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${Xxhash_INCLUDE_DIR}")
endif()
mark_as_advanced(Xxhash_INCLUDE_DIR)
