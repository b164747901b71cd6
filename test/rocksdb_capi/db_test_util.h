// Helpers of the db group's tests of RocksDB's C API (issue 24): a fresh directory per test,
// and the error-pointer and value conventions of the C API as C++ one-liners. The tests
// compile against Debian's rocksdb/c.h and link lib/shale-rocksdb/librocksdb.so only.
#ifndef SHALE_TEST_ROCKSDB_CAPI_DB_TEST_UTIL_H_
#define SHALE_TEST_ROCKSDB_CAPI_DB_TEST_UTIL_H_

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "rocksdb/c.h"

namespace shale::rocksdb_capi_test {

// A fresh, empty directory (removed with its contents when the object goes away).
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "rocksdb_capi_db_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Takes the message of *err (freeing it and resetting *err); nullopt when there was none.
inline std::optional<std::string> TakeError(char** err) {
  if (*err == nullptr) return std::nullopt;
  std::string message(*err);
  rocksdb_free(*err);
  *err = nullptr;
  return message;
}

// rocksdb_get_cf as a std::optional: nullopt when absent; an error fails the test.
inline std::optional<std::string> Get(rocksdb_t* db, rocksdb_column_family_handle_t* cf,
                                      const std::string& key,
                                      const rocksdb_readoptions_t* ro = nullptr) {
  rocksdb_readoptions_t* own = nullptr;
  if (ro == nullptr) ro = own = rocksdb_readoptions_create();
  char* err = nullptr;
  size_t len = 0;
  char* value = cf == nullptr ? rocksdb_get(db, ro, key.data(), key.size(), &len, &err)
                              : rocksdb_get_cf(db, ro, cf, key.data(), key.size(), &len, &err);
  if (own != nullptr) rocksdb_readoptions_destroy(own);
  EXPECT_EQ(TakeError(&err), std::nullopt) << key;
  if (value == nullptr) return std::nullopt;
  std::string out(value, len);
  rocksdb_free(value);
  return out;
}

// The bytes a C getter returns with its length through a size_t* (evaluated in order: in
// std::string(f(&len), len) the length may be read before f sets it).
template <typename F>
std::string Bytes(F getter) {
  size_t len = 0;
  const char* data = getter(&len);
  return data == nullptr ? std::string() : std::string(data, len);
}

}  // namespace shale::rocksdb_capi_test

#endif  // SHALE_TEST_ROCKSDB_CAPI_DB_TEST_UTIL_H_
