# Warnings and sanitizer flags shared by every target of the project.
add_compile_options(-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_compile_options(-Wthread-safety)
endif()

if(SHALE_SANITIZE)
  add_compile_options(-fsanitize=${SHALE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SHALE_SANITIZE})
endif()

if(SHALE_EXPENSIVE_CHECKS)
  add_compile_definitions(SHALE_EXPENSIVE_CHECKS=1)
endif()

if(SHALE_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SHALE_BUILD_FUZZERS needs clang (apt-get install clang-14 libclang-rt-14-dev)")
  endif()
  # Coverage instrumentation on all code, so the fuzzers see into the library.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
