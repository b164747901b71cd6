// Proves at compile time that include/shale-rocksdb/rocksdb/c.h declares RocksDB 7.8.3's C API
// exactly as Debian's rocksdb/c.h does, so that a program written against RocksDB's header
// calls our library with the same ABI. Both headers are included in this one translation unit,
// each inside a namespace of its own (their constants would clash at one scope):
//  - the opaque handle types are declared once at global scope first, so each header's
//    `typedef struct rocksdb_x_t rocksdb_x_t;` names the same struct in both namespaces;
//  - every function is extern "C" in both: C++ rejects two C-linkage declarations of one name
//    with different types even across namespaces (GCC under -pedantic-errors, see
//    CMakeLists.txt), and a static_assert per function of Debian's header compares the two
//    function types, which also fails when our header lacks one;
//  - a static_assert per constant compares the values.
// The lists come from Debian's header (rocksdb_c_api_list.inc, made at build time by
// tools/check_rocksdb_compat.py --emit-signature-checks). The test program links neither RocksDB
// nor our library; at run time it checks that the lists were complete. That our header has no
// function Debian's lacks is checked by ctest rocksdb_capi_header_names.
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <iterator>
#include <string_view>
#include <type_traits>

#include <gtest/gtest.h>

#define SHALE_OPAQUE_TYPE(type) struct type;
#define SHALE_SAME_FUNCTION(function)
#define SHALE_SAME_CONSTANT(constant)
#include "rocksdb_c_api_list.inc"
#undef SHALE_OPAQUE_TYPE
#undef SHALE_SAME_FUNCTION
#undef SHALE_SAME_CONSTANT

namespace debian {
#include SHALE_DEBIAN_ROCKSDB_C_H
}  // namespace debian

// Debian's header defines it empty; ours gives it the default-visibility attribute.
#undef ROCKSDB_LIBRARY_API

namespace ours {
#include SHALE_OUR_ROCKSDB_C_H
}  // namespace ours

#ifndef SHALE_ROCKSDB_C_H_
#error "SHALE_OUR_ROCKSDB_C_H is not include/shale-rocksdb/rocksdb/c.h"
#endif

#define SHALE_OPAQUE_TYPE(type)                                                     \
  static_assert(std::is_same_v<debian::type, ours::type> && std::is_same_v<type, ours::type>, \
                #type " is not the same struct in both headers");
#define SHALE_SAME_FUNCTION(function)                                                    \
  static_assert(std::is_same_v<decltype(debian::function), decltype(ours::function)>, \
                #function ": parameter or return types differ from Debian's rocksdb/c.h");
#define SHALE_SAME_CONSTANT(constant)                                               \
  static_assert(static_cast<long long>(debian::constant) ==                         \
                    static_cast<long long>(ours::constant),                         \
                #constant ": value differs from Debian's rocksdb/c.h");
#include "rocksdb_c_api_list.inc"
#undef SHALE_OPAQUE_TYPE
#undef SHALE_SAME_FUNCTION
#undef SHALE_SAME_CONSTANT

extern "C" int shale_rocksdb_header_compiles_as_c(void);  // header_c_compile.c

namespace {

#define SHALE_OPAQUE_TYPE(type)
#define SHALE_SAME_FUNCTION(function) std::string_view(#function),
#define SHALE_SAME_CONSTANT(constant)
constexpr std::string_view kComparedFunctions[] = {
#include "rocksdb_c_api_list.inc"
};
#undef SHALE_SAME_FUNCTION
#undef SHALE_SAME_CONSTANT
#define SHALE_SAME_FUNCTION(function)
#define SHALE_SAME_CONSTANT(constant) std::string_view(#constant),
constexpr std::string_view kComparedConstants[] = {
#include "rocksdb_c_api_list.inc"
};
#undef SHALE_OPAQUE_TYPE
#undef SHALE_SAME_FUNCTION
#undef SHALE_SAME_CONSTANT

// RocksDB 7.8.3's C API as Debian ships it: 783 functions (two of them, rocksdb_property_int and
// rocksdb_property_int_cf, declared without ROCKSDB_LIBRARY_API) and 107 constants. A smaller
// list would mean the generator missed declarations and some signatures went unchecked.
TEST(RocksdbCapiHeader, EveryFunctionAndConstantOfDebiansHeaderWasCompared) {
  EXPECT_EQ(std::size(kComparedFunctions), 783u);
  EXPECT_EQ(std::size(kComparedConstants), 107u);
  EXPECT_NE(std::find(std::begin(kComparedFunctions), std::end(kComparedFunctions),
                      "rocksdb_property_int_cf"),
            std::end(kComparedFunctions));
}

TEST(RocksdbCapiHeader, CompilesAsC99) {
  // The C file returns a constant of our header, compiled as strict C99.
  EXPECT_EQ(shale_rocksdb_header_compiles_as_c(), ours::rocksdb_total_metric_count);
}

}  // namespace
