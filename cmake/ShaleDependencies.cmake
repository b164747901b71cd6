# Finds every third-party dependency on the system (Debian packages, see third_party/README.md).
# A missing one stops configure with the name of the package that provides it.

function(shale_require found_var what package)
  if(NOT ${found_var})
    message(FATAL_ERROR
      "ShaleDB needs ${what}, which was not found.\n"
      "Install it with:  apt-get install ${package}\n"
      "(or run tools/dev.sh, which installs every missing package).")
  endif()
endfunction()

find_package(Threads REQUIRED)

find_package(absl CONFIG QUIET)
shale_require(absl_FOUND "abseil-cpp" "libabsl-dev")

find_package(Zstd MODULE QUIET)
shale_require(Zstd_FOUND "zstd" "libzstd-dev")

find_package(Lz4 MODULE QUIET)
shale_require(Lz4_FOUND "LZ4" "liblz4-dev")

find_package(Snappy MODULE QUIET)
shale_require(Snappy_FOUND "Snappy" "libsnappy-dev")

# CMake's own FindZLIB (ZLIB::ZLIB); zlib ships a pkg-config file, named in shale.pc.
find_package(ZLIB MODULE QUIET)
shale_require(ZLIB_FOUND "zlib" "zlib1g-dev")

find_package(Xxhash MODULE QUIET)
shale_require(Xxhash_FOUND "xxHash" "libxxhash-dev")

# jemalloc is linked into executables only; see third_party/README.md ("the dlopen trap").
find_package(Jemalloc MODULE QUIET)
shale_require(Jemalloc_FOUND "jemalloc" "libjemalloc-dev")

if(SHALE_BUILD_TESTS)
  find_package(GTest CONFIG QUIET)
  if(NOT GTest_FOUND)
    find_package(GTest MODULE QUIET)
  endif()
  shale_require(GTest_FOUND "googletest" "libgtest-dev")
endif()

if(SHALE_BUILD_BENCH)
  find_package(benchmark CONFIG QUIET)
  shale_require(benchmark_FOUND "google-benchmark" "libbenchmark-dev")
endif()
