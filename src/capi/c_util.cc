// The error and buffer helpers of c_handles.h, and shale_free.
#include <cstdlib>
#include <cstring>

#include "capi/c_handles.h"

namespace shale::capi {

void ClearError(char** errptr) {
  if (errptr == nullptr) return;
  std::free(*errptr);
  *errptr = nullptr;
}

bool SaveError(char** errptr, const Status& s) {
  ClearError(errptr);
  if (s.ok()) return false;
  if (errptr != nullptr) *errptr = CopyToMallocString(s.ToString());
  return true;
}

char* CopyToMalloc(std::string_view bytes) {
  char* result = static_cast<char*>(std::malloc(bytes.empty() ? 1 : bytes.size()));
  if (result != nullptr && !bytes.empty()) std::memcpy(result, bytes.data(), bytes.size());
  return result;
}

char* CopyToMallocString(std::string_view text) {
  char* result = static_cast<char*>(std::malloc(text.size() + 1));
  if (result == nullptr) return nullptr;
  if (!text.empty()) std::memcpy(result, text.data(), text.size());
  result[text.size()] = '\0';
  return result;
}

}  // namespace shale::capi

extern "C" {

void shale_free(void* ptr) { std::free(ptr); }

}  // extern "C"
