# install(): headers, libshale.a, libshale.so, a CMake package (find_package(shale CONFIG)
# gives shale::shale, the shared library unless SHALE_USE_STATIC is set before find_package,
# plus shale::shale_static and shale::shale_shared) and a pkg-config file (shale.pc).
include(CMakePackageConfigHelpers)

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/shale" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS shale_static shale_shared EXPORT shaleTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(SHALE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/shale)
install(EXPORT shaleTargets NAMESPACE shale:: DESTINATION ${SHALE_CMAKE_DIR})
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/shaleConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/shaleConfig.cmake" INSTALL_DESTINATION ${SHALE_CMAKE_DIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/shaleConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/shaleConfig.cmake"
  "${PROJECT_BINARY_DIR}/shaleConfigVersion.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/FindZstd.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/FindLz4.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/FindSnappy.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/FindXxhash.cmake"
  DESTINATION ${SHALE_CMAKE_DIR})

file(RELATIVE_PATH SHALE_PC_RELATIVE_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig"
     "${CMAKE_INSTALL_PREFIX}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/shale.pc.in" "${PROJECT_BINARY_DIR}/shale.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/shale.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# RocksDB's C API over ShaleDB (doc/rocksdb_compat.md): include/shale-rocksdb/rocksdb/c.h and
# lib/shale-rocksdb/librocksdb.so, in folders of their own so that neither shadows a real
# RocksDB, and shale-rocksdb.pc, which points a client at both (with an rpath, so that the
# program loads this librocksdb.so rather than one the system has).
install(FILES "${PROJECT_SOURCE_DIR}/include/shale-rocksdb/rocksdb/c.h"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/shale-rocksdb/rocksdb)
install(TARGETS shale_rocksdb LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/shale-rocksdb)
configure_file("${PROJECT_SOURCE_DIR}/cmake/shale-rocksdb.pc.in"
  "${PROJECT_BINARY_DIR}/shale-rocksdb.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/shale-rocksdb.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
