// Error reporting and buffer helpers of RocksDB's C API (handles.h).
#include <cstdlib>
#include <cstring>
#include <string>

#include "rocksdb_capi/handles.h"

namespace shale::rocksdb_capi {

void ClearError(char** errptr) {
  if (errptr == nullptr) return;
  std::free(*errptr);
  *errptr = nullptr;
}

bool SaveError(char** errptr, const Status& s) {
  if (s.ok()) return false;
  if (errptr != nullptr) {
    std::free(*errptr);
    *errptr = CopyToMallocString(s.ToString());
  }
  return true;
}

void NotSupported(char** errptr, const char* function) {
  SaveError(errptr, Status::NotSupported(std::string("Not supported by ShaleDB: ") + function));
}

char* CopyToMalloc(std::string_view bytes) {
  char* out = static_cast<char*>(std::malloc(bytes.empty() ? 1 : bytes.size()));
  if (!bytes.empty()) std::memcpy(out, bytes.data(), bytes.size());
  return out;
}

char* CopyToMallocString(std::string_view text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (!text.empty()) std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return out;
}

}  // namespace shale::rocksdb_capi
